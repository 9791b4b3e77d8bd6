/**
 * A deterministic, realistic agent session for the strategy benchmarks and
 * the cache simulator: a system prompt, a task, then tool calls with
 * log-uniform output sizes (200–8,000 chars by default), short JSON
 * arguments (an occasional long `write_file` body), and a short assistant
 * remark every few calls. Same seed → same bytes.
 */
import type { Message } from "../src/chat/types.ts";
import { prng } from "./prng.ts";

/** Shape of a generated session. */
export interface SessionOptions {
  /** Number of tool calls (pairs). */
  calls: number;
  /** PRNG seed. */
  seed?: number;
  /** Smallest output, chars. */
  minOutput?: number;
  /** Largest output, chars. */
  maxOutput?: number;
  /** An assistant remark after every this many calls (0 = never). */
  remarkEvery?: number;
}

const WORDS = (
  "the of and to in is for that on with as by this are from at be or an it not which " +
  "function return const value error file line test data result config path index type " +
  "string number object array import export class module async await promise json chat " +
  "tool call output message role content model token cache prefix epoch window"
).split(" ");

function prose(rand: () => number, chars: number): string {
  let s = "";
  while (s.length < chars) {
    s += WORDS[Math.floor(rand() * WORDS.length)]!;
    s += rand() < 0.08 ? ".\n" : " ";
  }
  return s.slice(0, chars);
}

const SYSTEM =
  "You are a careful software engineering agent. You can read, search and edit files in the " +
  "repository with the tools provided. Think step by step, keep answers short, and verify " +
  "every change by running the tests. ";

/**
 * The messages of a session after `calls` tool calls.
 *
 * @param opts size and seed
 * @returns system, user task, then the calls with their outputs
 */
export function agentSession(opts: SessionOptions): Message[] {
  const rand = prng(opts.seed ?? 42);
  const min = opts.minOutput ?? 200;
  const max = opts.maxOutput ?? 8000;
  const every = opts.remarkEvery ?? 5;
  const msgs: Message[] = [
    { role: "system", content: SYSTEM.repeat(12).trim() },
    { role: "user", content: "Fix the failing tests in the parser module. " + prose(rand, 400) },
  ];
  const tools = ["read_file", "grep", "list_dir", "run_tests", "write_file"];
  for (let i = 1; i <= opts.calls; i++) {
    const name = tools[Math.floor(rand() * tools.length)]!;
    const args: Record<string, unknown> = name === "grep"
      ? { pattern: prose(rand, 12 + Math.floor(rand() * 30)).trim(), path: `src/mod_${i % 17}` }
      : name === "write_file"
      ? { path: `src/file_${i}.ts`, content: prose(rand, 300 + Math.floor(rand() * 2700)) }
      : { path: `src/dir_${i % 23}/file_${i}.ts` };
    const id = `call_${i.toString(36).padStart(6, "0")}`;
    const size = Math.round(Math.exp(Math.log(min) + rand() * (Math.log(max) - Math.log(min))));
    msgs.push({ role: "function_call", content: JSON.stringify({ name, arguments: args, id }) });
    msgs.push({
      role: "function_call_output",
      content: JSON.stringify({ name, content: prose(rand, size), id }),
    });
    if (every > 0 && i % every === 0) {
      msgs.push({ role: "assistant", content: prose(rand, 80 + Math.floor(rand() * 240)) });
    }
  }
  return msgs;
}

/**
 * The prefixes of one growing session, one per inference: inference k sees
 * the first k calls with their outputs (k = 0 … calls). The message objects
 * are shared between prefixes, as in the tool loop.
 *
 * @param session a full session (see {@link agentSession})
 * @returns one message list per inference
 */
export function inferencePrompts(session: readonly Message[]): Message[][] {
  const cuts: number[] = [];
  session.forEach((m, i) => {
    if (m.role === "function_call") cuts.push(i);
  });
  cuts.push(session.length);
  return cuts.map((c) => session.slice(0, c));
}
