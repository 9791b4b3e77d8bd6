/**
 * A lock file created exclusively (`O_EXCL`: atomic on local file systems)
 * with its holder's text. When the text cannot be written (a full disk), the
 * empty file just made is removed: left, it would hold every later run until
 * it went stale (R92-1). Used by the job store's locks and the file locks of
 * registries and configs.
 *
 * @module
 */
import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { ScoutError } from "../errors.ts";
import { cannotText } from "./errno_text.ts";
import { unlinkQuiet, writeAllSync } from "./fs.ts";

/**
 * Creates `path` exclusively and writes `text` into it.
 *
 * @param path the lock file
 * @param text its holder's text
 * @param remakeDir make the directory again when it went away meanwhile
 * @returns the open descriptor (the caller closes it), or null when the file exists
 * @throws ScoutError `io` naming the lock when it cannot be created or written
 */
export function createWithText(path: string, text: string, remakeDir = false): number | null {
  let fd: number;
  try {
    fd = openSync(path, "wx");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return null;
    if (code === "ENOENT" && remakeDir) {
      mkdirSync(dirname(path), { recursive: true });
      return createWithText(path, text, remakeDir);
    }
    throw new ScoutError("io", cannotText("create the lock", path, e), { file: path, cause: e });
  }
  try {
    writeAllSync(fd, text);
  } catch (e) {
    closeSync(fd);
    unlinkQuiet(path);
    throw new ScoutError("io", cannotText("write the lock", path, e), { file: path, cause: e });
  }
  return fd;
}
