/**
 * Tool dispatch (`inference.md` §5.2–5.5, §5.7): runs one batch of calls from
 * a provider response and returns the `function_call` / `function_call_output`
 * messages as adjacent pairs in call order. Thrown errors become error outputs
 * ([TS-FIX]; aborts still propagate: the ask's abort abandons the calls still
 * running, see `interrupted.ts`), unknown tools and implementation-less
 * definitions answer with an error ([TS-FIX]), pinned arguments are merged
 * over the model's, every call gets its own start/end timestamps ([TS-FIX]).
 *
 * @module
 */
import type { Message } from "../chat/types.ts";
import { isScoutError } from "../errors.ts";
import type { SpecialistResult, SpecialistRunner } from "./agent_results.ts";
import { isAgentRequest } from "./agent_results.ts";
import { functionCallContent } from "./calls.ts";
import { ABANDONED, abortGate, interruptedOutput, interruptError } from "./interrupted.ts";
import {
  DEFAULT_MAX_CONTENT_LENGTH,
  errorOutput,
  guardLength,
  normalizeOutput,
} from "./content.ts";
import { isFunctionDefinition } from "./registry.ts";
import type { ToolFunction, ToolInvocation, ToolOutput, ToolRegistry } from "./types.ts";
import { toolOutput } from "./types.ts";
import { argumentsError, problemsError } from "./validate.ts";
import { clipEnd } from "../util/clip.ts";

/** Options of {@link runToolCalls}. */
export interface RunToolCallsOptions {
  /** Tools by name. */
  registry: ToolRegistry;
  /** Fallback for names without an implementation in the registry. */
  handler?: ToolFunction;
  /** Length guard (chars; default 100 000). */
  maxContentLength?: number;
  /** Abort signal of the ask. */
  signal?: AbortSignal;
  /** Clock (tests). */
  now?: () => Date;
  /**
   * How many calls may run at once (default 1: in order, like the Ruby, with
   * calls of `concurrent` tools started together).
   */
  concurrency?: number;
  /**
   * Runs the specialists that tools returned as `{agent}` (§3.2), once all
   * calls of the batch were dispatched. Without it such a result is an error
   * output.
   */
  runSpecialists?: SpecialistRunner;
  /**
   * How many of the calls run (`max_reply_tool_calls`); each call after them gets
   * an error output instead (default: all run).
   */
  maxCalls?: number;
}

/** A call whose tool returned `{agent}`: its output waits for the runner. */
type Pending = { pending: object };

/** An output envelope (§5.5 key order). */
export interface OutputEnvelope {
  /** Tool name. */
  name: string;
  /** Output text. */
  content: string;
  /** Call id. */
  id: string;
  /** `error` or `truncated`, when set. */
  error?: string;
  /** Stack lines of an error. */
  stack?: string[];
  /** Receipts of a delegated agent's inferences. */
  agent_meta?: Message[];
  /** The delegated agent, when the call does not name it (a custom tool's specialist). */
  agent?: string;
  /** The delegated conversation a one-shot call ran as (its log's name). */
  conversation?: string;
  /** Job short path. */
  step?: string;
  /** When the call started (UTC ISO-8601, ms). */
  start_timestamp: string;
  /** When it ended. */
  timestamp: string;
}

/** The envelope's optional fields, in the order it is written (§5.5). */
const OPTIONAL_KEYS = ["agent", "conversation", "error", "stack", "agent_meta", "step"] as const;

function isAbort(e: unknown): boolean {
  return e instanceof Error && (e.name === "AbortError" || e.name === "TimeoutError") &&
    !(e as { code?: unknown }).code;
}

/** An offline replay miss (`not_cached`, or a failure caused by one) ends the ask, never a tool output. */
function replayMiss(e: unknown): boolean {
  for (let c = e, depth = 0; c && depth < 8; c = (c as { cause?: unknown }).cause, depth++) {
    if (isScoutError(c, "not_cached")) return true;
  }
  return false;
}

function notFound(name: string, reg: ToolRegistry): ToolOutput {
  const names = [...reg.keys()];
  const hint = names.length ? ` Available tools: ${names.join(", ")}` : " No tools are available";
  return errorOutput(new Error(`Tool or function not found '${name}'.${hint}`));
}

/** What a value is, for an error: "an array", "a number", "null". */
function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}

/**
 * The arguments of a call as an object, or the error answering them: text
 * that is not JSON, or JSON that is not an object — an array or a number
 * spread to `{}` and ran the tool with its defaults (R88-6).
 */
function callArguments(call: ToolInvocation): Record<string, unknown> | Error {
  let value = call.arguments;
  if (value === undefined) return {};
  if (typeof value === "string") {
    const text = value;
    try {
      value = JSON.parse(text);
    } catch {
      return new Error(
        `Invalid JSON in the arguments of '${call.name}': ${clipEnd(text, 200, "")}`,
      );
    }
  }
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    return value as Record<string, unknown>;
  }
  return new Error(`The arguments of '${call.name}' must be a JSON object, got ${kindOf(value)}`);
}

async function execute(
  call: ToolInvocation,
  opts: RunToolCallsOptions,
): Promise<(ToolOutput & { content: string }) | Pending> {
  const entry = opts.registry.get(call.name);
  const given = callArguments(call);
  if (given instanceof Error) return normalizeOutput(errorOutput(given));
  const def = entry?.definition;
  const defaults = def && isFunctionDefinition(def) ? def.function.parameters?.defaults : undefined;
  const args: Record<string, unknown> = { ...given, ...(defaults ?? {}) };
  const impl = entry?.impl ?? opts.handler;
  if (!impl) {
    if (entry) {
      return normalizeOutput(errorOutput(
        new Error(`Tool '${call.name}' is declared but has no implementation`),
      ));
    }
    return normalizeOutput(notFound(call.name, opts.registry));
  }
  if (entry) {
    const schema = def && isFunctionDefinition(def) ? def.function.parameters : undefined;
    const invalid = entry.validate
      ? problemsError(call.name, entry.validate(args))
      : argumentsError(call.name, args, schema);
    if (invalid !== null) return normalizeOutput(errorOutput(new Error(invalid)));
  }
  try {
    const ctx = opts.signal ? { id: call.id, signal: opts.signal } : { id: call.id };
    const raw = await impl(call.name, args, ctx);
    if (isAgentRequest(raw)) {
      if (opts.runSpecialists) return { pending: raw.agent };
      throw new Error(`Tool '${call.name}' returned an agent but no specialist runner is set`);
    }
    return await normalizeOutput(raw);
  } catch (e) {
    if (isAbort(e) || opts.signal?.aborted || replayMiss(e)) throw e;
    return normalizeOutput(errorOutput(e));
  }
}

/**
 * Serialises an output envelope (§5.5). An unencodable envelope degrades to a
 * plain error string.
 *
 * @param env the envelope
 * @returns JSON text
 */
export function envelopeContent(env: OutputEnvelope): string {
  const ordered: Record<string, unknown> = { name: env.name, content: env.content, id: env.id };
  for (const key of OPTIONAL_KEYS) if (env[key] !== undefined) ordered[key] = env[key];
  ordered.start_timestamp = env.start_timestamp;
  ordered.timestamp = env.timestamp;
  try {
    return JSON.stringify(ordered);
  } catch (e) {
    return `Error encoding the output of '${env.name}' (${env.id}): ${(e as Error).message}`;
  }
}

/**
 * Runs a batch of calls and returns `[call₁, output₁, call₂, output₂, …]`.
 *
 * @param calls calls in response order
 * @param opts registry, fallback handler, limits
 * @returns the message pairs
 *
 * @example
 * ```ts
 * import { runToolCalls } from "./dispatch.ts";
 * import { toolRegistry } from "./registry.ts";
 * const registry = toolRegistry({ echo: [(_n, a) => a.text, { name: "echo" }] });
 * const pairs = await runToolCalls([{ name: "echo", arguments: { text: "hi" }, id: "c1" }], { registry });
 * JSON.parse(String(pairs[1]!.content)).content; // "hi"
 * ```
 */
export async function runToolCalls(
  calls: ToolInvocation[],
  opts: RunToolCallsOptions,
): Promise<Message[]> {
  const now = opts.now ?? (() => new Date());
  const max = opts.maxContentLength ?? DEFAULT_MAX_CONTENT_LENGTH;
  const outputs: Message[][] = new Array(calls.length);
  const waiting: { i: number; start: string; agent: object }[] = [];
  const finish: Finish = (i, start, result, end) => {
    outputs[i] = outputPair(calls[i]!, start, result, { now, max, end });
  };
  const signal = opts.signal;
  const gate = abortGate(signal);
  const maxCalls = opts.maxCalls ?? Infinity;
  const runOne = async (i: number) => {
    const start = now().toISOString();
    if (i >= maxCalls) return finish(i, start, notRunOutput(calls.length, maxCalls));
    let out: Awaited<ReturnType<typeof execute>> | typeof ABANDONED = ABANDONED;
    try {
      if (!signal?.aborted) out = await gate.until(execute(calls[i]!, opts));
    } catch (e) {
      if (!signal?.aborted) throw e;
    }
    if (out === ABANDONED) finish(i, start, interruptedOutput(signal!));
    else if ("pending" in out) waiting.push({ i, start, agent: out.pending });
    else finish(i, start, out);
  };
  try {
    await runScheduled(calls, opts, runOne);
  } finally {
    gate.close();
  }
  if (waiting.length) await runWaiting(waiting.sort((a, b) => a.i - b.i), opts, finish, now);
  // the ask was interrupted: the pairs so far, interrupted calls included, go with the abort
  if (signal?.aborted) throw interruptError(signal, outputs.flat());
  return outputs.flat();
}

/** The output of a call past `max_reply_tool_calls`: not run. */
function notRunOutput(calls: number, max: number): ToolOutput & { content: string } {
  const exception =
    `Tool call not run: the reply made ${calls} tool calls, more than max_reply_tool_calls (${max}); make fewer calls at a time`;
  return toolOutput({
    content: JSON.stringify({ exception, exception_line: null }),
    error: "error",
  }) as ToolOutput & { content: string };
}

/**
 * Records a finished call's pair: `end` is when it ended (a specialist's run,
 * stamped as it ended), else now.
 */
type Finish = (
  i: number,
  start: string,
  result: ToolOutput & { content: string },
  end?: string,
) => void;

/** A call and its output envelope: the pair of messages a finished call adds. */
function outputPair(
  call: ToolInvocation,
  start: string,
  result: ToolOutput & { content: string },
  at: { now: () => Date; max: number; end?: string | undefined },
): Message[] {
  const out = guardLength(result, {
    name: call.name,
    id: call.id,
    arguments: call.arguments,
    max: at.max,
  });
  const env: OutputEnvelope = {
    name: call.name,
    content: out.content,
    id: call.id,
    start_timestamp: start,
    timestamp: at.end ?? at.now().toISOString(),
  };
  for (const key of OPTIONAL_KEYS) {
    if (out[key] !== undefined) (env as unknown as Record<string, unknown>)[key] = out[key];
  }
  return [
    { role: "function_call", content: functionCallContent(call) },
    { role: "function_call_output", content: envelopeContent(env) },
  ];
}

/**
 * Runs every call with `runOne`: `concurrency` at a time when above 1; else
 * in order, one at a time — except tools marked concurrent (workflow jobs),
 * which start at once and are awaited together at the end of the batch.
 */
async function runScheduled(
  calls: ToolInvocation[],
  opts: RunToolCallsOptions,
  runOne: (i: number) => Promise<void>,
): Promise<void> {
  const limit = Math.max(1, Math.floor(opts.concurrency ?? 1));
  if (limit > 1) {
    let next = 0;
    const worker = async () => {
      while (next < calls.length) await runOne(next++);
    };
    await Promise.all(Array.from({ length: Math.min(limit, calls.length) }, worker));
    return;
  }
  const background: Promise<void>[] = [];
  try {
    for (let i = 0; i < calls.length; i++) {
      if (opts.registry.get(calls[i]!.name)?.concurrent) background.push(runOne(i));
      else await runOne(i);
    }
  } finally {
    await Promise.allSettled(background);
  }
  await Promise.all(background);
}

/**
 * Runs the specialists the batch's tools returned and finishes their calls,
 * each output stamped when its own run began and ended (the runner says
 * when), not when the batch was dispatched and its last run ended.
 */
async function runWaiting(
  waiting: { i: number; start: string; agent: object }[],
  opts: RunToolCallsOptions,
  finishCall: Finish,
  now: () => Date,
): Promise<void> {
  let results: SpecialistResult[];
  const signal = opts.signal;
  const ends: (string | undefined)[] = new Array(waiting.length);
  const starts: (string | undefined)[] = new Array(waiting.length);
  const stamp = (at: (string | undefined)[]) => (k: number) => {
    if (Number.isInteger(k) && k >= 0 && k < waiting.length) at[k] ??= now().toISOString();
  };
  const finish = (k: number, out: ToolOutput & { content: string }) =>
    finishCall(waiting[k]!.i, starts[k] ?? waiting[k]!.start, out, ends[k]);
  try {
    // specialists watch the ask's signal themselves: what they paid for stays in agent_meta
    const agents = waiting.map((w) => w.agent);
    results = signal?.aborted ? [] : await opts.runSpecialists!(agents, stamp(ends), stamp(starts));
  } catch (e) {
    if (replayMiss(e) || (!signal?.aborted && isAbort(e))) throw e;
    results = waiting.map(() => ({ content: "", error: e }));
  }
  for (let k = 0; k < waiting.length; k++) {
    const r = results[k] ??
      { content: "", error: new Error("The specialist runner gave no result") };
    const fields = {
      ...(r.agent_meta?.length ? { agent_meta: r.agent_meta } : {}),
      ...(r.conversation !== undefined ? { conversation: r.conversation } : {}),
      ...(r.agent !== undefined ? { agent: r.agent } : {}),
    };
    if (signal?.aborted && (r.error !== undefined || results[k] === undefined)) {
      finish(k, { ...interruptedOutput(signal), ...fields });
      continue;
    }
    if (r.error !== undefined) {
      finish(k, { ...await normalizeOutput(errorOutput(r.error)), ...fields });
      continue;
    }
    finish(k, {
      ...await normalizeOutput(toolOutput({ content: r.content })),
      ...fields,
    });
  }
}
