/**
 * A system error (`NodeJS.ErrnoException`: `code`, `syscall`, `path`…) in the
 * project's words: `Cannot create directory "<path>": permission denied`
 * instead of the runtime's `EACCES: permission denied, mkdir '<path>'`. The
 * CLI's error reporter uses it for a system error nothing more specific
 * caught (R81-12).
 *
 * @module
 */

/** What each error code means, in words. */
const REASONS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOENT: "no such file or directory",
  ENOTDIR: "a part of the path is not a directory",
  EISDIR: "it is a directory",
  EEXIST: "it already exists",
  ENOTEMPTY: "the directory is not empty",
  EROFS: "read-only file system",
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EMFILE: "too many open files",
  ENFILE: "too many open files in the system",
  ENAMETOOLONG: "the name is too long",
  ELOOP: "too many levels of symbolic links",
  EXDEV: "it is on another file system",
  EBUSY: "resource busy",
  ETXTBSY: "text file busy",
  EIO: "input/output error",
  EBADF: "bad file descriptor",
  EPIPE: "the reader has gone (broken pipe)",
  EADDRINUSE: "address already in use",
  EADDRNOTAVAIL: "address not available",
  EINVAL: "invalid argument",
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ETIMEDOUT: "timed out",
};

/** What the call tried, as `Cannot <verb> …` says it. */
const VERBS: Record<string, string> = {
  mkdir: "create directory",
  mkdtemp: "create a temporary directory in",
  open: "open",
  read: "read",
  write: "write",
  close: "close",
  rename: "rename",
  unlink: "remove",
  rmdir: "remove directory",
  rm: "remove",
  scandir: "list directory",
  opendir: "list directory",
  stat: "look at",
  lstat: "look at",
  fstat: "look at",
  access: "access",
  copyfile: "copy",
  cp: "copy",
  symlink: "create a link",
  link: "create a link",
  readlink: "read link",
  realpath: "resolve",
  chmod: "change the mode of",
  chown: "change the owner of",
  utime: "set the times of",
  ftruncate: "truncate",
  fsync: "sync",
  watch: "watch",
  listen: "listen on",
  connect: "connect to",
  spawn: "run",
};

/** The reason Node's message gives (`EACCES: permission denied, mkdir '/x'` → `permission denied`). */
function reasonOf(code: string, message: unknown): string {
  if (REASONS[code] !== undefined) return REASONS[code];
  const m = typeof message === "string" ? /^\w+: ([^,]+)/.exec(message) : null;
  return m ? m[1]!.trim() : code;
}

/**
 * Why a system call failed, in words (`permission denied`); the message of
 * an error without an `E…` code.
 *
 * @param e what was thrown
 * @returns the reason
 */
export function errnoReason(e: unknown): string {
  const { code, message } = (e ?? {}) as Record<string, unknown>;
  if (typeof code === "string" && /^E[A-Z0-9]+$/.test(code)) return reasonOf(code, message);
  return typeof message === "string" ? message : String(e);
}

/**
 * A system error's message in the project's words, or null when `e` is not
 * one (no `E…` code, or no call to name).
 *
 * @param e what was thrown
 * @returns `Cannot <what> "<path>": <reason>`, or null
 *
 * @example
 * ```ts
 * import { errnoText } from "./errno_text.ts";
 * const e = Object.assign(new Error("EACCES: permission denied, mkdir '/h/tmp'"),
 *   { code: "EACCES", syscall: "mkdir", path: "/h/tmp" });
 * errnoText(e); // 'Cannot create directory "/h/tmp": permission denied'
 * ```
 */
export function errnoText(e: unknown): string | null {
  if (e === null || typeof e !== "object") return null;
  const { code, syscall, path, dest, address, port, message } = e as Record<string, unknown>;
  if (typeof code !== "string" || !/^E[A-Z0-9]+$/.test(code)) return null;
  if (typeof syscall !== "string" || syscall === "") return null;
  const verb = VERBS[syscall.replace(/^spawn.*/, "spawn")] ?? syscall;
  let target = "";
  if (typeof path === "string" && path !== "") {
    target = ` "${path}"${typeof dest === "string" && dest !== "" ? ` to "${dest}"` : ""}`;
  } else if (typeof address === "string" && address !== "") {
    target = ` ${address.includes(":") ? `[${address}]` : address}` +
      (typeof port === "number" ? `:${port}` : "");
  }
  return `Cannot ${verb}${target}: ${reasonOf(code, message)}`;
}

/**
 * The message of a failed call on a file the caller names: `Cannot <what>
 * "<path>": <reason>`, the reason in words without the runtime's own copy of
 * the path (`EACCES: permission denied, open '<path>'` → `permission denied`),
 * so the path is said once (R92-6).
 *
 * @param what what was tried (`create the lock`)
 * @param path the file it was tried on
 * @param e what was thrown
 * @returns the message
 *
 * @example
 * ```ts
 * import { cannotText } from "./errno_text.ts";
 * const e = Object.assign(new Error("EACCES: permission denied, open '/l'"), { code: "EACCES" });
 * cannotText("create the lock", "/l", e); // 'Cannot create the lock "/l": permission denied'
 * ```
 */
export function cannotText(what: string, path: string, e: unknown): string {
  return `Cannot ${what} "${path}": ${errnoReason(e)}`;
}
