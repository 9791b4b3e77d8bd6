/**
 * A directory on another file system for tests: a small tmpfs mounted in a
 * temp directory, so a hard link into it from the test's temp directory fails
 * with EXDEV, as it does between a cluster's scratch and a node's `/tmp`; its
 * size bounds what may be written into it. Needs root on Linux, as the
 * full-disk tests do (`full_disk.ts`); where no tmpfs can be mounted, the test
 * fails saying so in one line (never skipped). The mount is removed when
 * disposed, never left behind.
 *
 * @module
 */
import { mountTmpfs, unmount } from "./full_disk.ts";

/** A mounted tmpfs. */
export interface OtherFileSystem extends AsyncDisposable {
  /** The mount point. */
  path: string;
}

/**
 * Mounts a tmpfs of `size` (mount's `size=` option: `8m`).
 *
 * @param size its size
 * @returns the mount; dispose it to unmount and remove it
 */
export async function otherFileSystem(size = "8m"): Promise<OtherFileSystem> {
  const path = await mountTmpfs(`size=${size}`);
  return { path, [Symbol.asyncDispose]: () => unmount(path) };
}
