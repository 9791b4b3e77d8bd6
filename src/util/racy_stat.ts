/**
 * When a file's stats may vouch for its content ("racy" stats, as git calls
 * them): shared by the endpoint lookup (`config/endpoints.ts`) and the
 * knowledge base's indexes (`kb/database.ts`), which reuse what they read
 * while the file's inode, size, modification and change times are those it
 * was read with.
 *
 * @module
 */

/**
 * How long before a read a file must have been left unchanged for its stats
 * to vouch for it: the coarsest timestamps in use (FAT's 2 s; ext4 and NFS
 * keep nanoseconds, some servers — and Deno's ctime — seconds).
 */
export const RACY_MS = 2_000;

/**
 * When a file last changed, as its stats tell it: its change time, or its
 * modification time when that is later (a ctime coarser than the mtime, as
 * Deno's whole seconds) — but not a modification time later than the read:
 * that one was set (`touch -d`, `tar x` or `rsync -a` of a file from a
 * machine whose clock ran ahead), and setting it set the ctime to the
 * moment it was set, which the kernel alone writes (R112-2).
 */
function lastChangeMs(readAtMs: number, st: { mtimeMs: number; ctimeMs: number }): number {
  return st.mtimeMs > readAtMs ? st.ctimeMs : Math.max(st.mtimeMs, st.ctimeMs);
}

/**
 * Whether stats taken when a file was read can vouch for what was read: the
 * file had not changed for {@link RACY_MS} before that read. A change within
 * the file system's timestamp granularity of the read (an in-place rewrite of
 * the same size in the same second) could leave every stat equal, so a file
 * that young must be read again until it has aged. A modification time in
 * the future says nothing of when the file changed: the change time, which
 * user space cannot set, judges it then — any later change moves the change
 * time past the read, so equal stats still mean the same content (R112-2:
 * before, such a file was read again on every use).
 *
 * @param readAtMs when the read began (ms since the epoch), taken before the stat
 * @param st the file's stats at that read
 * @returns true when equal stats later mean the same content
 *
 * @example
 * ```ts
 * import { statsVouch } from "./racy_stat.ts";
 * const now = Date.now();
 * statsVouch(now, { mtimeMs: now - 60_000, ctimeMs: now - 60_000 }); // true
 * statsVouch(now, { mtimeMs: now + 1e10, ctimeMs: now - 60_000 }); // true: set ahead a minute ago
 * statsVouch(now, { mtimeMs: now + 1e10, ctimeMs: now - 500 }); // false: set just now
 * ```
 */
export function statsVouch(readAtMs: number, st: { mtimeMs: number; ctimeMs: number }): boolean {
  return readAtMs - lastChangeMs(readAtMs, st) > RACY_MS;
}

/**
 * Whether a file's change time is ahead of this machine's clock by more than
 * {@link RACY_MS}: its stats cannot vouch for it until the clock has passed
 * it (a file server whose clock runs ahead of this one's: user space cannot
 * set a ctime), so what was read from it is read again on each use until then.
 *
 * @param readAtMs when the read began (ms since the epoch)
 * @param st the file's stats at that read
 * @returns true when the change time is that far in the future
 *
 * @example
 * ```ts
 * import { changedAhead } from "./racy_stat.ts";
 * changedAhead(0, { ctimeMs: 60_000 }); // true
 * ```
 */
export function changedAhead(readAtMs: number, st: { ctimeMs: number }): boolean {
  return st.ctimeMs - readAtMs > RACY_MS;
}
