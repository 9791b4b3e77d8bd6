/**
 * A directory mounted `noatime` for tests: a temp directory bind-mounted on
 * itself and remounted with `noatime`, so reading a file there never moves
 * its access time (as on many cluster file systems). Needs root on Linux, as
 * `read_only_mount.ts` does; where the mount cannot be made the test fails
 * saying so (never skipped). Unmounted and removed when disposed.
 *
 * @module
 */
import { run, unmount } from "./full_disk.ts";

/** A `noatime` mounted directory. */
export interface NoatimeDir extends AsyncDisposable {
  /** The mount point. */
  path: string;
}

/**
 * Makes a temp directory mounted `noatime`.
 *
 * @returns the directory; dispose it to unmount and remove it
 */
export async function noatimeDir(): Promise<NoatimeDir> {
  const path = await Deno.makeTempDir({ prefix: "scout-noatime-" });
  if (!run("mount", ["--bind", path, path])) {
    await Deno.remove(path, { recursive: true }).catch(() => {});
    throw new Error(`cannot bind-mount ${path} (the noatime tests need root on Linux)`);
  }
  const dir: NoatimeDir = { path, [Symbol.asyncDispose]: () => unmount(path) };
  if (!run("mount", ["-o", "remount,bind,noatime", path])) {
    await dir[Symbol.asyncDispose]();
    throw new Error(`cannot remount ${path} noatime (mount -o remount,bind,noatime needs root)`);
  }
  return dir;
}
