/**
 * Saving what a task's body returned as its job's result file (`workflow.md`
 * §3.1): a value serialized by type, a stream consumed into the file, and a
 * value no result file can hold refused.
 *
 * A stream — a web `ReadableStream`, a `Blob`, a Node `Readable` or any async
 * iterable of text or bytes — is written as it comes to a temp file renamed
 * into place once it ends, as Ruby's `Open.sensible_write` does an IO a task
 * returned; the runner marks the job `done` only after. A stream that fails
 * leaves no result (the job fails with its error); an interrupt cancels it.
 *
 * [TS-FIX] A value whose result file would not hold it — a `Map`, a `Set`, a
 * function, a `Response`, a class instance without fields or `toJSON`, a
 * `bigint` — fails the job naming the task and what it returned, where it was
 * saved as `{}` and the job marked done (R126-3). Ruby writes such an object's
 * `to_s`; JavaScript has no faithful text for it. An executed job's value
 * (`exec`, no result file) is shown by the same rules ({@link execOutput}).
 * A number or boolean result whose text loads as another value is written
 * all the same and warned about (`result_fit.ts`).
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { existsSync, renameSync, rmSync } from "node:fs";
import { ScoutError } from "../errors.ts";
import { writeChunksAtomic, writeFileAtomicSync } from "../util/fs.ts";
import type { Job, Task } from "./job_types.ts";
import { deserializeResult, serializeResult } from "./result.ts";
import { warnResultMisfit } from "./result_fit.ts";
import { tmpPath } from "./store.ts";
import { arrayElementType } from "./types.ts";

/**
 * Writes a body's value as the job's result: a tmp result the body wrote
 * when it returned none, a stream's content, else the value serialized by
 * the task's type.
 *
 * @param job the job
 * @param task its task
 * @param value what the body returned
 * @param signal the run's interrupt: cancels a stream being consumed
 * @throws ScoutError `unsavable_result` for a value the result file cannot hold;
 *   `job_aborted` when interrupted mid-stream; a failed stream's own error
 */
export async function saveResult(
  job: Job,
  task: Task,
  value: unknown,
  signal: AbortSignal,
): Promise<void> {
  if (value === null || value === undefined) {
    if (existsSync(tmpPath(job.path))) renameSync(tmpPath(job.path), job.path);
    // §7.4 #5: never "done" without a result file; an empty json/number/boolean
    // result loads back as null (deserializeResult)
    else writeFileAtomicSync(job.path, "");
    return;
  }
  const source = chunkSource(value);
  if (source !== null && parsedWhenLoaded(task.type)) {
    const bytes = await collected(streamBytes(source, task, signal, job));
    checkLoads(bytes, task);
    writeFileAtomicSync(job.path, bytes);
  } else if (source !== null) {
    await writeChunksAtomic(job.path, streamBytes(source, task, signal, job));
  } else {
    const bad = unsavablePart(value, task.type);
    if (bad !== null) throw unsavable(task, bad);
    const content = serializeResult(value, task.type);
    // Synchronous temp + fsync + rename: one thread hop less per job (the info
    // write before the body already created the directory).
    writeFileAtomicSync(job.path, content);
    // kept as Scout writes it; told when it loads as another value (R165-6)
    if (typeof content === "string") warnResultMisfit(job, content, task.type);
  }
  if (existsSync(tmpPath(job.path))) rmSync(tmpPath(job.path), { force: true, recursive: true });
}

/**
 * What an executed job's body returned, as exec shows it — a chat's
 * `exec_task:`, an exec export's tool output (`workflow.md` §4 `exec`): a
 * stream consumed into its bytes, checked to load as the task's type, as
 * {@link saveResult} writes it; a value no result file could hold refused
 * the same way, naming the task ([TS-FIX] R126-3 for exec: both showed as
 * `{}`). Any other value is returned as it is.
 *
 * @param job the executed job (one without a task: its loaded result)
 * @param value what the body returned
 * @param signal cancels a stream being consumed
 * @returns the value, a stream's content as bytes
 * @throws ScoutError as {@link saveResult}: `unsavable_result`, `job_aborted`, a
 *   failed stream's own error
 */
export async function execOutput(
  job: Job,
  value: unknown,
  signal: AbortSignal = new AbortController().signal,
): Promise<unknown> {
  const task = job.task;
  if (task === null || value === null || value === undefined) return value;
  const source = chunkSource(value);
  if (source !== null) {
    const bytes = await collected(streamBytes(source, task, signal, job));
    if (parsedWhenLoaded(task.type)) checkLoads(bytes, task);
    return bytes;
  }
  const bad = unsavablePart(value, task.type);
  if (bad !== null) throw unsavable(task, bad);
  return value;
}

/**
 * Whether a result of `type` is parsed when it is loaded (JSON, or lines of
 * JSON), so that a stream's text must parse before the job is done (R129-5:
 * a `json` task streaming other text was done with a result no load could
 * read, and stayed done).
 */
function parsedWhenLoaded(type: string): boolean {
  return type === "json" || arrayElementType(type) === "json";
}

async function collected(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const c of chunks) parts.push(c);
  return Buffer.concat(parts);
}

/** Throws `unsavable_result` naming the task when `bytes` do not load as its type. */
function checkLoads(bytes: Uint8Array, task: Task): void {
  try {
    deserializeResult(bytes, task.type);
  } catch (e) {
    throw new ScoutError(
      "unsavable_result",
      `Task "${task.workflow}/${task.name}" streamed text that is no "${task.type}" result: ${
        (e as Error).message
      }`,
      { cause: e },
    );
  }
}

/** A stream's next chunk and its cancellation. */
interface ChunkSource {
  next(): Promise<IteratorResult<unknown>>;
  cancel(): Promise<unknown>;
}

function readerSource(stream: ReadableStream<unknown>): ChunkSource {
  const reader = stream.getReader();
  return {
    next: () => reader.read() as Promise<IteratorResult<unknown>>,
    cancel: () => reader.cancel().catch(() => {}),
  };
}

/** The chunks of a stream-like value, or null for any other value. */
function chunkSource(value: unknown): ChunkSource | null {
  if (typeof value !== "object" || value === null) return null;
  if (value instanceof ReadableStream) return readerSource(value);
  if (value instanceof Blob) return readerSource(value.stream());
  const iterate = (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator];
  if (typeof iterate !== "function") return null;
  const it = iterate.call(value) as AsyncIterator<unknown>;
  return { next: () => it.next(), cancel: async () => await it.return?.() };
}

const utf8 = new TextEncoder();

/**
 * The bytes of a stream's chunks (text as UTF-8), ended by the run's
 * interrupt (the stream cancelled, `job_aborted`) or by a chunk that is
 * neither text nor bytes.
 */
async function* streamBytes(
  source: ChunkSource,
  task: Task,
  signal: AbortSignal,
  job: Job,
): AsyncGenerator<Uint8Array> {
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () =>
      reject(
        new ScoutError("job_aborted", `Job "${job.shortPath}" was interrupted`, {
          file: job.path,
        }),
      );
  });
  aborted.catch(() => {});
  if (signal.aborted) onAbort();
  signal.addEventListener("abort", onAbort, { once: true });
  let ended = false;
  try {
    for (;;) {
      const next = await Promise.race([source.next(), aborted]);
      if (next.done) {
        ended = true;
        return;
      }
      const chunk = next.value;
      if (typeof chunk === "string") yield utf8.encode(chunk);
      else if (chunk instanceof Uint8Array) yield chunk;
      else if (chunk instanceof ArrayBuffer) yield new Uint8Array(chunk);
      else throw unsavable(task, { what: `a stream of ${kindOf(chunk)}`, at: "" });
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    if (!ended) await source.cancel();
  }
}

/** A part of a value that cannot be saved: what it is and where (`""` for the value itself). */
interface Unsavable {
  what: string;
  at: string;
}

function unsavable(task: Task, bad: Unsavable): ScoutError {
  const where = bad.at === "" ? "" : ` at "${bad.at}"`;
  return new ScoutError(
    "unsavable_result",
    `Task "${task.workflow}/${task.name}" returned ${bad.what}${where}, which ${
      article(task.type)
    } "${task.type}" ` +
      `result file cannot hold: return text, bytes, plain data or a stream${hint(bad.what)}`,
  );
}

function hint(what: string): string {
  if (what === "a Response") return " (the response's body, or its text)";
  if (what === "a Map") return " (Object.fromEntries(map))";
  if (what === "a Set") return " ([...set])";
  return "";
}

/** `a Map`, `an Error`, `a function`… */
function kindOf(v: unknown): string {
  let name: string = typeof v;
  if (v === null) name = "null";
  else if (typeof v === "bigint") name = "BigInt";
  else if (typeof v === "object") {
    const ctor = (Object.getPrototypeOf(v) as { constructor?: { name?: unknown } } | null)
      ?.constructor?.name;
    const iterable = typeof (v as { [Symbol.iterator]?: unknown })[Symbol.iterator] === "function";
    name = typeof ctor === "string" && ctor !== "" ? ctor : iterable ? "iterator" : "object";
  }
  return `${article(name)} ${name}`;
}

function article(word: string): string {
  return /^[aeiouAEIOU]/.test(word) ? "an" : "a";
}

/**
 * The part of a value that its type's result file would not hold, or null.
 * Scalar types write text (`String`), bytes as they are, objects as JSON;
 * `json` and `yaml` write the value as JSON/YAML; arrays each item as a scalar.
 */
function unsavablePart(value: unknown, type: string): Unsavable | null {
  const el = arrayElementType(type) ?? (type === "array" ? "string" : null);
  if (el !== null && Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const bad = scalarPart(item, `[${i}]`);
      if (bad !== null) return bad;
    }
    return null;
  }
  if (type === "json" || type === "yaml") return dataPart(value, "", new Set());
  if (type === "chat") return null; // refused by serializeResult unless text or messages
  return scalarPart(value, "");
}

function scalarPart(value: unknown, at: string): Unsavable | null {
  if (typeof value === "symbol" || typeof value === "function") {
    return { what: kindOf(value), at };
  }
  if (typeof value !== "object" || value === null || value instanceof Uint8Array) return null;
  return dataPart(value, at, new Set());
}

/** JSON's view of a value: plain data, `toJSON`, and class instances by their fields. */
function dataPart(value: unknown, at: string, seen: Set<object>): Unsavable | null {
  if (typeof value === "function" || typeof value === "symbol" || typeof value === "bigint") {
    return { what: kindOf(value), at };
  }
  if (typeof value !== "object" || value === null || seen.has(value)) return null;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return null;
  const proto = Object.getPrototypeOf(value);
  const plain = proto === Object.prototype || proto === null || Array.isArray(value);
  const keys = Object.keys(value);
  // a Map, a Set, a stream, a typed array, a class instance without fields: JSON writes `{}`
  // or a key per index
  if (!plain && (keys.length === 0 || ArrayBuffer.isView(value))) {
    return { what: kindOf(value), at };
  }
  seen.add(value);
  for (const key of keys) {
    const sub = Array.isArray(value) ? `${at}[${key}]` : at === "" ? key : `${at}.${key}`;
    const bad = dataPart((value as Record<string, unknown>)[key], sub, seen);
    if (bad !== null) return bad;
  }
  seen.delete(value);
  return null;
}
