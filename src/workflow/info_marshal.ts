/**
 * The `.info` of a job as `system clean` reads it (R124-1): JSON, else a
 * Ruby Marshal dump — what Scout writes when `SCOUT_SERIALIZER` picks
 * `marshal`, and reads back itself (`Step.load_info` falls back to
 * Marshal). [TS-FIX] `workflow.md` §7.3 has the port's reader take a
 * Marshal-only info as `noinfo`; that is kept for `workflow info` and
 * provenance, but a clean must know a job's status, process and
 * dependencies: a Ruby job with such an info stopped every clean of the
 * store.
 *
 * @module
 */
import { isScoutError } from "../errors.ts";
import { infoPath } from "./store.ts";
import { type InfoRead, type JobInfo, readJobInfoSync } from "./info.ts";
import { readMarshal, type RubyObject } from "./marshal_read.ts";
import { rubyTime } from "./time.ts";
import { readRegularFileSync } from "../util/regular_file.ts";

/** A Marshal info read: its info, or why it cannot be read and whether its bytes end too early. */
export type MarshalInfoRead =
  | { info: JobInfo; problem: null; truncated: false }
  | { info: null; problem: string; truncated: boolean };

/**
 * The info a Marshal dump holds: its hash, symbol keys and values read as
 * strings (`status: :done` → `"done"`), Times as Ruby's `Time#to_s`.
 *
 * @param bytes the `.info` file's bytes
 * @param file the file, for the message
 * @returns the info, or why it cannot be read
 */
export function marshalInfo(bytes: Uint8Array, file: string): MarshalInfoRead {
  let v: unknown;
  try {
    v = readMarshal(bytes);
  } catch (e) {
    if (!isScoutError(e, "invalid_input")) throw e;
    return {
      info: null,
      problem: `Info file "${file}" is a Ruby Marshal dump that cannot be read: ${e.message}`,
      truncated: e.truncated === true,
    };
  }
  if (v === null || typeof v !== "object" || Array.isArray(v) || "rubyClass" in v) {
    const problem = `Info file "${file}" is a Ruby Marshal dump of no hash`;
    return { info: null, problem, truncated: false };
  }
  return { info: plainInfo(v as Record<string, unknown>), problem: null, truncated: false };
}

/**
 * The info's fields in the forms a JSON info has: a Time as Ruby's
 * `Time#to_s`; a field holding another Ruby object (the `exception`) left
 * out (the port reads errors from `messages`, §7.3).
 */
function plainInfo(hash: Record<string, unknown>): JobInfo {
  const out: JobInfo = {};
  for (const [k, v] of Object.entries(hash)) {
    if (v === null || typeof v !== "object" || !("rubyClass" in v)) out[k] = v;
    else {
      const time = rubyTimeOf(v as RubyObject);
      if (time !== null) out[k] = time;
    }
  }
  return out;
}

/** A Ruby Time's `_dump` (two little-endian words of UTC fields, `time.c`'s `time_mdump`) as `Time#to_s`; null for another object. */
function rubyTimeOf(o: RubyObject): string | null {
  if (o.rubyClass !== "Time" || !(o.data instanceof Uint8Array) || o.data.length !== 8) return null;
  const view = new DataView(o.data.buffer, o.data.byteOffset, 8);
  const p = view.getUint32(0, true);
  const s = view.getUint32(4, true);
  if ((p & 0x8000_0000) === 0) return null; // the old form: seconds since the epoch
  const date = new Date(Date.UTC(
    1900 + ((p >>> 14) & 0xffff),
    (p >>> 10) & 0xf,
    (p >>> 5) & 0x1f,
    p & 0x1f,
    s >>> 26,
    (s >>> 20) & 0x3f,
  ));
  return rubyTime(date);
}

/**
 * Reads a job's `.info` as JSON, else as a Ruby Marshal dump.
 *
 * @param jobPath the job's result path
 * @returns the info and any problem; `marshal` says the file was a dump,
 *   `truncated` that it ends before its value does
 */
export function readStoreJobInfo(
  jobPath: string,
): InfoRead & { marshal?: boolean; truncated?: boolean } {
  const read = readJobInfoSync(jobPath);
  if (read.problem === null) return read;
  let bytes: Uint8Array;
  try {
    bytes = readRegularFileSync(infoPath(jobPath)); // never a FIFO planted in its place (R125-4)
  } catch {
    return read; // the problem the JSON read met says why
  }
  if (bytes[0] !== 4 || bytes[1] !== 8) return read;
  const m = marshalInfo(bytes, infoPath(jobPath));
  return { ...m, info: m.info ?? { status: "noinfo" }, marshal: true };
}
