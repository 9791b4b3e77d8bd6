/**
 * A really read-only directory for tests: a temp directory bind-mounted on
 * itself and remounted read-only, so every write into it fails with EROFS —
 * for root too, which file modes do not stop. Needs root on Linux (CI runs
 * the suite as root, as the full-disk tests need: `full_disk.ts`); where the
 * mount cannot be made, the test fails saying so in one line (never skipped).
 * The mount is removed when disposed, never left behind.
 *
 * @module
 */
import { run, unmount } from "./full_disk.ts";

/** A read-only mounted directory. */
export interface ReadOnlyDir extends AsyncDisposable {
  /** The mount point. */
  path: string;
}

/**
 * Makes a temp directory, lets `prepare` lay out what it must hold, then
 * makes it read-only (a read-only bind mount of itself).
 *
 * @param prepare makes directories and files while it is writable
 * @returns the read-only directory; dispose it to unmount and remove it
 */
export async function readOnlyDir(
  prepare: (path: string) => void = () => {},
): Promise<ReadOnlyDir> {
  const path = await Deno.makeTempDir({ prefix: "scout-ro-" });
  const remove = () => Deno.remove(path, { recursive: true }).catch(() => {});
  try {
    prepare(path);
  } catch (e) {
    await remove();
    throw e;
  }
  if (!run("mount", ["--bind", path, path])) {
    await remove();
    throw new Error(
      `cannot bind-mount ${path} (the read-only tests need root on Linux: mount --bind, remount,ro)`,
    );
  }
  const dir: ReadOnlyDir = {
    path,
    [Symbol.asyncDispose]: () => unmount(path),
  };
  if (!run("mount", ["-o", "remount,ro,bind", path])) {
    await dir[Symbol.asyncDispose]();
    throw new Error(`cannot remount ${path} read-only (mount -o remount,ro,bind needs root)`);
  }
  return dir;
}
