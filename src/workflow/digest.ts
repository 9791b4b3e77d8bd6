/**
 * `digestStr` (`workflow.md` §2.3): the text Scout hashes into job names.
 * Byte-exact with Scout for every spec vector, so jobs share names (and
 * caches) with Ruby.
 *
 * @module
 */
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
} from "node:fs";
import { isAbsolute, join } from "node:path";
import { md5hex } from "../util/hash.ts";
import { isJob } from "./job_types.ts";
import { identifyJobPath } from "./identify.ts";

/** A value digested as a Scout `Path` (inputs of type `path`/`file`). */
export interface PathRef {
  /** Brand. */
  readonly pathRef: string;
}

/**
 * Wraps a path-typed input value so {@link digestStr} digests it as a Scout
 * `Path`: an absolute existing file → `File MD5`, a directory → `Directory MD5`,
 * anything else quoted (`'data/missing.txt'`).
 *
 * @param path the input value
 * @returns the wrapper
 */
export function pathRef(path: string): PathRef {
  return { pathRef: path };
}

function isPathRef(v: unknown): v is PathRef {
  return typeof v === "object" && v !== null && typeof (v as PathRef).pathRef === "string" &&
    Object.keys(v).length === 1;
}

/** Context of {@link digestStr}. */
export interface DigestContext {
  /** Environment (for `~/` identities of jobs outside any jobs root). */
  env?: Record<string, string | undefined>;
}

const MAX_ARRAY = 100_000;
const BIG_FILE = 10_000_000;
const SAMPLE = 3_000_000;

function fastFileMd5(path: string, size: number): string {
  const fd = openSync(path, "r");
  try {
    const parts: Uint8Array[] = [new TextEncoder().encode(`${size}:`)];
    for (const pos of [0, Math.floor(size / 2), size - SAMPLE - 1]) {
      const buf = new Uint8Array(SAMPLE);
      const n = readSync(fd, buf, 0, SAMPLE, pos);
      parts.push(buf.subarray(0, n));
    }
    let len = 0;
    for (const p of parts) len += p.length;
    const all = new Uint8Array(len);
    let off = 0;
    for (const p of parts) {
      all.set(p, off);
      off += p.length;
    }
    return md5hex(all);
  } finally {
    closeSync(fd);
  }
}

/**
 * Scout's file digest: the content of `<file>.md5` if present, else MD5 of the
 * bytes (files over 10 MB: MD5 of size + three 3 MB samples).
 *
 * @param path absolute file path
 * @returns hex digest
 */
export function fileMd5(path: string): string {
  const side = path + ".md5";
  if (existsSync(side) && isRegularFile(side)) return readFileSync(side, "utf8").trim();
  const size = statSync(path).size;
  return size > BIG_FILE ? fastFileMd5(path, size) : md5hex(readFileSync(path));
}

function isFilename(s: string): boolean {
  return s !== "" && !s.includes("\n") && !s.split("/").some((p) => p.length > 265);
}

const STEP_FILE = /(?:^|\/)([^/]+)\/([^/]+)\/([^/]+\.files\/.+)$/;

/**
 * Whether a path lies in a job's `.files/` directory: digested by its place
 * in the store (`Step file: …`), not by its content.
 *
 * @param path a path
 * @returns true for a job's file
 *
 * @example
 * ```ts
 * import { isStepFilePath } from "./digest.ts";
 * isStepFilePath("/s/var/jobs/Wf/task/Default.files/out.tsv"); // true
 * isStepFilePath("/home/me/data.tsv"); // false
 * ```
 */
export function isStepFilePath(path: string): boolean {
  return STEP_FILE.test(path);
}

function stringDigest(s: string, ctx: DigestContext, asPath: boolean): string {
  if (!isFilename(s)) return asPath ? `'${s}'` : s;
  let st;
  try {
    st = statSync(s);
  } catch {
    return asPath ? `'${s}'` : s;
  }
  if (!isAbsolute(s)) return `'${s}'`;
  const stepFile = STEP_FILE.exec(s);
  if (stepFile) return `Step file: ${stepFile[1]}/${stepFile[2]}/${stepFile[3]}`;
  if (st.isDirectory()) {
    const files = readdirSync(s).filter((f) => !f.startsWith(".")).sort().map((f) => join(s, f));
    return "Directory MD5: " + digestStr(files, ctx);
  }
  // [TS-FIX] a device, FIFO or socket is not read: `/dev/zero` never ends and a FIFO without a
  // writer blocks the process, so one string naming it stalled `workflow mcp` for every client;
  // it is digested as a path naming no file (Scout reads it: `Open.exists?`)
  if (!st.isFile()) return asPath ? `'${s}'` : s;
  return "File MD5: " + fileMd5(s);
}

function isRegularFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function joinQuirk(parts: Iterable<string>): string {
  // Scout's inject: while the accumulated text is empty, the next item replaces it.
  let acc = "";
  for (const s of parts) acc = acc === "" ? s : acc + ", " + s;
  return acc;
}

function fixed(x: number, digits: number): string {
  // C printf %.Nf (round half to even on the exact binary value).
  const exact = Math.abs(x).toFixed(100);
  const dot = exact.indexOf(".");
  const keep = exact.slice(0, dot + 1 + digits);
  const rest = exact.slice(dot + 1 + digits);
  let digitsOnly = keep.replace(".", "");
  const half = rest[0]! > "5" || (rest[0] === "5" && /[1-9]/.test(rest.slice(1)));
  const tie = rest[0] === "5" && !/[1-9]/.test(rest.slice(1));
  const last = Number(digitsOnly[digitsOnly.length - 1]);
  if (half || (tie && last % 2 === 1)) {
    digitsOnly = (BigInt(digitsOnly) + 1n).toString().padStart(digitsOnly.length, "0");
  }
  const intLen = digitsOnly.length - digits;
  const out = digits > 0
    ? `${digitsOnly.slice(0, intLen)}.${digitsOnly.slice(intLen)}`
    : digitsOnly;
  return (x < 0 ? "-" : "") + out;
}

function numberDigest(x: number): string {
  if (Number.isInteger(x)) return Math.abs(x) >= 1e21 ? BigInt(x).toString() : String(x);
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "NaN" : x > 0 ? "Infinity" : "-Infinity";
  const a = Math.abs(x);
  if (a > 10) return fixed(x, 1);
  if (a > 1) return fixed(x, 3);
  return fixed(x, 6);
}

/**
 * Scout's `Misc.digest_str` (§2.3): jobs → `Step: var/jobs/WF/task/name`;
 * strings naming existing files → `File MD5: …` (absolute), `'path'`
 * (relative), `Step file: …` (inside a job's `.files/`), `Directory MD5: […]`
 * (a device, FIFO or socket is never read: the string as it is, [TS-FIX]);
 * other strings as is; integers as decimals; floats `2`, `12.3`, `1.500`,
 * `0.500000`; `true`/`false`/`nil`; arrays `[a, b]` (empty items at the start
 * vanish, Scout's quirk; over 100 000 items: `[n:` five samples `]`); maps
 * `{k=v, …}` in insertion order.
 *
 * @param value any value
 * @param ctx environment for job identities
 * @returns the digest string
 *
 * @example
 * ```ts
 * import { digestStr } from "./digest.ts";
 * digestStr({ inputs: "[3, soft]", dependencies: [] }); // "{inputs=[3, soft], dependencies=[]}"
 * digestStr(["", "a"]); // "[a]"
 * ```
 */
export function digestStr(value: unknown, ctx: DigestContext = {}): string {
  if (value === null || value === undefined) return "nil";
  if (isJob(value)) {
    return "Step: " + identifyJobPath(value.path, value.store, ctx.env);
  }
  if (isPathRef(value)) return stringDigest(value.pathRef, ctx, true);
  switch (typeof value) {
    case "string":
      return stringDigest(value, ctx, false);
    case "number":
      return numberDigest(value);
    case "bigint":
      return value.toString();
    case "boolean":
      return value ? "true" : "false";
    case "symbol":
      return value.description ?? "";
  }
  if (Array.isArray(value)) {
    if (value.length > MAX_ARRAY) {
      const n = value.length;
      const mid = Math.floor(n / 2);
      const sample = [1, 2, mid, n - 2, n - 1].map((i) => digestStr(value[i], ctx));
      return `[${n}:` + joinQuirk(sample) + "]";
    }
    return "[" + joinQuirk(value.map((v) => digestStr(v, ctx))) + "]";
  }
  if (value instanceof Uint8Array) return new TextDecoder().decode(value);
  const entries = value instanceof Map
    ? [...value]
    : Object.entries(value as Record<string, unknown>);
  return "{" + joinQuirk(entries.map(([k, v]) => digestStr(k, ctx) + "=" + digestStr(v, ctx))) +
    "}";
}

/**
 * MD5 of {@link digestStr} (Scout's `Misc.digest`); strings are hashed as is.
 *
 * @param value any value
 * @param ctx digest context
 * @returns lowercase hex MD5
 */
export function digest(value: unknown, ctx: DigestContext = {}): string {
  return md5hex(typeof value === "string" ? value : digestStr(value, ctx));
}
