/**
 * Reading a queue request (`queue.ts`) as a worker that trusts no client
 * (R167-6): the claimed file is opened without following a link and without
 * blocking (`O_NOFOLLOW | O_NONBLOCK`), and only a regular file, checked on the
 * open descriptor, is read — a FIFO no longer hangs the worker, a link no
 * longer reads a file of the worker's choosing. A request that does not parse
 * is left while it may still be being written, then told as such, without the
 * parser's words (they quote the file).
 *
 * @module
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";

/** The largest request read (a question with its images): 256 MiB. */
export const MAX_REQUEST_BYTES = 256 * 1024 * 1024;

const READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** A request that is no request: failed, with this message for the client. */
export class BadRequest extends Error {}

/** A request that does not parse yet but changed lately: still being written, left for later (R167-5). */
export class Unsettled extends Error {}

/** How long after its last change an unparsable request is taken as still being written. */
export const SETTLE_MS = 5_000;

/**
 * The text of the claimed request at `path`.
 *
 * @throws BadRequest when it is not a regular file, or too large
 */
export function requestText(path: string): { text: string; mtimeMs: number } {
  let fd: number;
  try {
    fd = openSync(path, READ);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ELOOP") {
      throw new BadRequest("The request is a symbolic link, not a regular file");
    }
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new BadRequest("The request is not a regular file");
    if (st.size > MAX_REQUEST_BYTES) {
      throw new BadRequest(`The request is larger than ${MAX_REQUEST_BYTES} bytes`);
    }
    return { text: readFileSync(fd, "utf8"), mtimeMs: st.mtimeMs };
  } finally {
    closeSync(fd);
  }
}

/**
 * The parsed request at `path` ({@link requestText}). One that does not parse
 * and was changed within `settleMs` is being written in place (cp, scp, an
 * editor): {@link Unsettled}, to be read again later (R167-5).
 *
 * @throws BadRequest when it is not a regular file, or not valid JSON though
 *   settled (no parser text: it quotes the file); Unsettled
 */
export function readRequest(path: string, settleMs = SETTLE_MS): unknown {
  const { text, mtimeMs } = requestText(path);
  try {
    return JSON.parse(text);
  } catch {
    if (Math.abs(Date.now() - mtimeMs) < settleMs) throw new Unsettled(path);
    throw new BadRequest(`The request is not valid JSON after ${settleMs / 1000} s`);
  }
}
