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
 * Whether stats taken when a file was read can vouch for what was read: the
 * file had not changed for {@link RACY_MS} before that read. A change within
 * the file system's timestamp granularity of the read (an in-place rewrite of
 * the same size in the same second) could leave every stat equal, so a file
 * that young must be read again until it has aged.
 *
 * @param readAtMs when the read began (ms since the epoch), taken before the stat
 * @param st the file's stats at that read
 * @returns true when equal stats later mean the same content
 */
export function statsVouch(readAtMs: number, st: { mtimeMs: number; ctimeMs: number }): boolean {
  return readAtMs - Math.max(st.mtimeMs, st.ctimeMs) > RACY_MS;
}
