/**
 * A real full disk for tests: a small tmpfs mounted in a temp directory and
 * filled up, so every write into it fails with ENOSPC while files can still
 * be created (tmpfs counts inodes apart from pages, as a full disk keeps free
 * inodes). Needs root on Linux (CI runs the suite as root); where no tmpfs
 * can be mounted, the test fails saying so in one line (never skipped).
 * The mount is removed when disposed, never left behind. {@link noFreeInodes}
 * is the other full: space left, but no inode for a new file.
 *
 * @module
 */
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

/** Runs a command quietly: whether it succeeded (false when it cannot start). */
export function run(cmd: string, args: string[]): boolean {
  try {
    return new Deno.Command(cmd, { args, stdout: "null", stderr: "null" }).outputSync().success;
  } catch {
    return false;
  }
}

/** A mounted, filled tmpfs. */
export interface FullDisk extends AsyncDisposable {
  /** The mount point. */
  path: string;
  /** Frees the space (removes the filler); writes succeed again. */
  free(): void;
  /** Fills it again. */
  fill(): void;
}

/**
 * Mounts a small tmpfs, lets `prepare` lay out what must exist before the
 * disk is full, then fills it.
 *
 * @param prepare makes directories and files while there is space
 * @returns the full disk; dispose it to unmount
 */
export async function fullDisk(prepare: (path: string) => void = () => {}): Promise<FullDisk> {
  const path = await mountTmpfs("size=256k");
  const filler = join(path, ".filler");
  const disk: FullDisk = {
    path,
    free: () => rmSync(filler, { force: true }),
    fill: () => {
      const fd = openSync(filler, "a");
      const chunk = new Uint8Array(4096);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOSPC") throw e;
      } finally {
        closeSync(fd);
      }
    },
    [Symbol.asyncDispose]: () => unmount(path),
  };
  return await prepared(disk, prepare);
}

/**
 * Mounts a small tmpfs with few inodes, lets `prepare` lay out what must
 * exist, then uses up its inodes with empty files: data can still be
 * written to a file that exists, but no file or directory can be created
 * (ENOSPC), as on a file system out of inodes or over an inode quota.
 *
 * @param prepare makes directories and files while there are inodes
 * @returns the disk; `free` frees its inodes, `fill` uses them up again
 */
export async function noFreeInodes(
  prepare: (path: string) => void = () => {},
): Promise<FullDisk> {
  const path = await mountTmpfs("size=1m,nr_inodes=64");
  const fillers = join(path, ".fillers");
  const disk: FullDisk = {
    path,
    free: () => rmSync(fillers, { recursive: true, force: true }),
    fill: () => {
      try {
        mkdirSync(fillers);
        for (let i = 0;; i++) closeSync(openSync(join(fillers, String(i)), "wx"));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOSPC") throw e;
      }
    },
    [Symbol.asyncDispose]: () => unmount(path),
  };
  return await prepared(disk, prepare);
}

/**
 * A tmpfs mounted with `options` in a new temp directory; a failure says why in one line.
 *
 * @param options mount's `-o` (`size=256k`)
 * @returns the mount point (remove it with {@link unmount})
 */
export async function mountTmpfs(options: string): Promise<string> {
  const path = await Deno.makeTempDir({ prefix: "scout-full-" });
  if (!run("mount", ["-t", "tmpfs", "-o", options, "tmpfs", path])) {
    await Deno.remove(path, { recursive: true });
    throw new Error(
      `cannot mount a tmpfs at ${path} (these tests need root on Linux: mount -t tmpfs)`,
    );
  }
  return path;
}

/** Unmounts `path` (lazily when busy) and removes the directory. */
export async function unmount(path: string): Promise<void> {
  if (!run("umount", [path])) run("umount", ["-l", path]);
  await Deno.remove(path, { recursive: true }).catch(() => {});
}

/** `disk` laid out by `prepare`, then filled; unmounted when either fails. */
async function prepared(disk: FullDisk, prepare: (path: string) => void): Promise<FullDisk> {
  try {
    prepare(disk.path);
    disk.fill();
  } catch (e) {
    await disk[Symbol.asyncDispose]();
    throw e;
  }
  return disk;
}
