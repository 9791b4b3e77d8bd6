/**
 * The delegation scenario of `bench/agents_bench.ts`, shared by the
 * loopback server (which plays every model) and the two harness children
 * (`agents_scout.ts`, `agents_sdk.ts`).
 *
 * One round: the user asks Root; Root's model calls its three specialists at
 * once (SpecA, SpecB, SpecC); SpecA and SpecB answer; SpecC — the nested
 * society — asks Leaf, then answers; Root answers. 7 model requests and 4
 * delegated calls per round. Every specialist call is independent (a
 * one-shot `ask` in scout-ai, an agent-as-tool run in the SDK).
 *
 * The server decides each reply from the request alone (which agent: its
 * system prompt; which step: whether the last message is a tool output), so
 * parallel calls may arrive in any order.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import type { RecordedRequest, ScriptStep } from "../tests/support/provider_server.ts";

/** Rounds per run. */
export const ROUNDS = 20;
/** Root's specialists. */
export const SPECIALISTS = ["SpecA", "SpecB", "SpecC"] as const;
/** The specialist that socializes itself, and the one it asks. */
export const NESTED = { caller: "SpecC", callee: "Leaf" } as const;
/** Model requests per round. */
export const REQUESTS_PER_ROUND = 7;
/** Delegated calls per round (3 by Root, 1 by SpecC). */
export const DELEGATIONS_PER_ROUND = 4;

/** System prompt of an agent (the server recognises the agent by it). */
export function systemPrompt(name: string): string {
  const role: Record<string, string> = {
    Root: "You coordinate. Ask SpecA, SpecB and SpecC, then answer in one line.",
    SpecA: "You answer questions about inputs, in one line.",
    SpecB: "You answer questions about outputs, in one line.",
    SpecC: "You review. Ask Leaf for a detail first, then answer in one line.",
    Leaf: "You give one detail, in one line.",
  };
  return `You are ${name}. ${role[name] ?? ""}`;
}

/** The user question of round `n` (1-based). */
export function question(n: number): string {
  return `R${n}: plan step ${n} of the release`;
}

/** The prompt a caller sends a specialist in round `n`. */
export function taskFor(agent: string, n: number): string {
  return `R${n} task for ${agent}: one line please`;
}

type Msg = { role?: string; content?: unknown };

function textOf(c: unknown): string {
  if (typeof c === "string") return c;
  if (Array.isArray(c)) {
    return c.map((p) => String((p as Record<string, unknown>)?.text ?? "")).join("");
  }
  return "";
}

/**
 * Which agent of the scenario a request is from (its system prompt names it).
 *
 * @param req the recorded request
 * @returns the agent's name, or undefined
 */
export function agentOf(req: RecordedRequest): string | undefined {
  const msgs = (req.body.messages ?? []) as Msg[];
  const system = textOf(msgs.find((m) => m.role === "system" || m.role === "developer")?.content);
  return /You are (\w+)\./.exec(system)?.[1];
}

/**
 * A request's step: its agent, with `'` when it follows tool outputs (the
 * agent's second request of the round).
 *
 * @param req the recorded request
 * @returns e.g. `SpecC` or `SpecC'`
 */
export function stepOf(req: RecordedRequest): string {
  const msgs = (req.body.messages ?? []) as Msg[];
  return `${agentOf(req) ?? "?"}${msgs.at(-1)?.role === "tool" ? "'" : ""}`;
}

/**
 * The scripted reply to one request (both harnesses' tool shapes: scout-ai's
 * single `ask` tool with `{agent, prompt}`, the SDK's `ask_<Agent>` tools with
 * `{input}`).
 *
 * @param req the recorded request
 * @returns the reply
 */
export function reply(req: RecordedRequest): ScriptStep {
  const msgs = (req.body.messages ?? []) as Msg[];
  const who = agentOf(req);
  if (!who) return { status: 400, message: "bench: no agent system prompt in the request" };
  const lastUser = [...msgs].reverse().find((m) => m.role === "user");
  const n = Number(/R(\d+)/.exec(textOf(lastUser?.content))?.[1] ?? 0);
  const last = msgs.at(-1);
  const tools = ((req.body.tools ?? []) as Array<{ function?: { name?: string } }>)
    .map((t) => t.function?.name);
  const call = (agent: string) =>
    tools.includes("ask")
      ? {
        name: "ask",
        id: `call_${who}_${n}_${agent}`,
        arguments: { agent, prompt: taskFor(agent, n) },
      }
      : {
        name: `ask_${agent}`,
        id: `call_${who}_${n}_${agent}`,
        arguments: { input: taskFor(agent, n) },
      };
  if (last?.role === "tool") return { text: `${who} R${n} done: all specialists answered` };
  if (who === "Root") return { toolCalls: SPECIALISTS.map(call) };
  if (who === NESTED.caller) return { toolCalls: [call(NESTED.callee)] };
  return { text: `${who} answers R${n}: fine` };
}

/** What a harness child prints (one JSON line on stdout). */
export interface ChildReport {
  /** Harness name. */
  harness: string;
  /** Wall time of each round, ms (the user turn, the model work, saving the chat). */
  roundsMs: number[];
  /** CPU time (user + system, all threads) of rounds 2…last, ms. */
  cpuMs: number;
  /** Of {@link cpuMs}, the system (kernel) part, ms. */
  cpuSysMs: number;
  /** Writing the specialists' logs after the last round, ms. */
  saveMs: number;
  /** Peak RSS (VmHWM), KiB. */
  peakRssKiB: number;
  /** Messages/items found in the saved files, by file kind. */
  saved: { chat: number; specialists: number; files: number };
}

/**
 * A child's report, the CPU and peak RSS taken here.
 *
 * @param harness the harness's name
 * @param roundsMs wall time of each round, ms
 * @param cpu `process.cpuUsage` over rounds 2…last
 * @param saveMs writing the specialists' logs, ms
 * @param saved what was found saved
 * @returns the report
 */
export function childReport(
  harness: string,
  roundsMs: number[],
  cpu: { user: number; system: number },
  saveMs: number,
  saved: ChildReport["saved"],
): ChildReport {
  const cpuMs = (cpu.user + cpu.system) / 1000;
  return {
    harness,
    roundsMs,
    cpuMs,
    cpuSysMs: cpu.system / 1000,
    saveMs,
    peakRssKiB: peakRssKiB(),
    saved,
  };
}

/**
 * Peak resident set size of this process (Linux `VmHWM`), KiB; 0 elsewhere.
 *
 * @returns KiB
 */
export function peakRssKiB(): number {
  try {
    const status = readFileSync("/proc/self/status", "utf8");
    return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  } catch {
    return 0;
  }
}
