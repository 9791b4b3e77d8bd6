/**
 * Whether a value has the shape of an agent (`agents.md` §1.1): the fields
 * every function over an agent reads, of their kinds. Said where a user's
 * code hands over something else — a function of the API given an
 * un-awaited `api.loadAgent(…)`, a name or `{}` (R131-1), an `agent.ts` that
 * leaves or returns a broken agent (R131-2) — instead of failing later, deep
 * inside a tool call or an inference, with the runtime's message.
 *
 * @module
 */
import { ScoutError } from "../errors.ts";
import { clipEnd } from "../util/clip.ts";

/** What is wrong with a would-be agent: fields it lacks, and fields of another kind. */
export interface AgentShapeProblems {
  /** Fields it does not have (undefined). */
  missing: string[];
  /** Fields of the wrong kind, each said (`options is null, not an object`). */
  wrong: string[];
}

const RECORDS = ["options", "runtime", "society", "chats"] as const;

/** `null`, `an array`, `a Promise`, `a string`… */
function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (isThenable(v)) return "a Promise";
  const t = typeof v;
  return t === "object" ? "an object" : /^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`;
}

function isThenable(v: unknown): boolean {
  return (typeof v === "object" || typeof v === "function") && v !== null &&
    typeof (v as { then?: unknown }).then === "function";
}

function isRecord(v: unknown): boolean {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !isThenable(v);
}

function isMessage(v: unknown): boolean {
  return isRecord(v) && typeof (v as { role?: unknown }).role === "string";
}

/**
 * The fields of `v` not of their kind: `startChat` (and `currentChat`, unless
 * null) an array — of messages when `messages` —, `options`, `runtime`,
 * `society`, `chats` records, `processException` a function or null.
 *
 * @param v an object
 * @param messages also check each message of `startChat` and `currentChat`
 * @returns what is missing and what is wrong; both empty for an agent
 */
export function agentShapeProblems(v: object, messages = false): AgentShapeProblems {
  const rec = v as Record<string, unknown>;
  const out: AgentShapeProblems = { missing: [], wrong: [] };
  const field = (k: string, ok: (x: unknown) => boolean, want: string) => {
    if (rec[k] === undefined) out.missing.push(k);
    else if (!ok(rec[k])) out.wrong.push(`${k} is ${kindOf(rec[k])}, not ${want}`);
  };
  field("startChat", Array.isArray, "an array of messages");
  for (const k of RECORDS) field(k, isRecord, "an object");
  const chat = rec.currentChat;
  if (chat !== undefined && chat !== null && !Array.isArray(chat)) {
    out.wrong.push(`currentChat is ${kindOf(chat)}, not an array of messages or null`);
  }
  const pe = rec.processException;
  if (pe !== undefined && pe !== null && typeof pe !== "function") {
    out.wrong.push(`processException is ${kindOf(pe)}, not a function or null`);
  }
  if (!messages) return out;
  for (const k of ["startChat", "currentChat"]) {
    const list = rec[k];
    const i = Array.isArray(list) ? list.findIndex((m) => !isMessage(m)) : -1;
    if (i >= 0) out.wrong.push(`${k}[${i}] is ${kindOf((list as unknown[])[i])}, not a message`);
  }
  return out;
}

/** The problems as one phrase: `it has no options, runtime; startChat is null, not …`. */
export function shapeText(p: AgentShapeProblems): string {
  return [...(p.missing.length ? [`it has no ${p.missing.join(", ")}`] : []), ...p.wrong]
    .join("; ");
}

/**
 * Checks an argument of an agent function (`delegate`, `socialize`, `ask`…)
 * is an agent, when it is called: an un-awaited `loadAgent` or a name would
 * otherwise fail later, far from the call (a hand-off tool's output).
 *
 * @param v the argument
 * @param fn the function's name (`delegate`)
 * @param role which argument (`argument 2 (the agent handed to)`)
 * @throws ScoutError `invalid_input` saying what it got, and how to get an agent
 */
export function checkAgentArg(v: unknown, fn: string, role = "argument 1"): void {
  let why: string | null;
  if (isThenable(v)) why = "a Promise: await api.loadAgent(…)";
  else if (typeof v === "string") {
    const name = JSON.stringify(clipEnd(v, 40));
    why = `a string, not an agent: pass await api.loadAgent(${name})`;
  } else if (typeof v !== "object" || v === null || Array.isArray(v)) {
    why = `${kindOf(v)}, not an agent`;
  } else {
    const p = agentShapeProblems(v);
    why = p.missing.length + p.wrong.length ? `not an agent (${shapeText(p)})` : null;
  }
  if (why !== null) throw new ScoutError("invalid_input", `${fn}: ${role} is ${why}`);
}
