/**
 * Agent logs of a job (`agents.md` §4.4, §7.7, §7.10): the agent's
 * conversation goes to `<job>.files/log/[<subdir>/]agent.chat` and each
 * specialist it talked to to `…/society/<Agent>/<conversation>.chat`; a
 * specialist's own society nests under `…/society/<Agent>/<conversation>/society/…`.
 * Chats are printed raw (`print`, never the compiler), written atomically.
 * Then the job's `dependencies` info is replaced by the absolute paths of its
 * direct dependencies, as Ruby's `log_agent` does.
 *
 * @module
 */
import { print } from "../chat/print.ts";
import type { Message } from "../chat/types.ts";
import { isAbsolute, posix } from "node:path";
import { writeJobFile } from "../workflow/files.ts";
import type { JobContext } from "../workflow/job_types.ts";
import { ScoutError } from "../errors.ts";
import { isCarriedOver } from "./carried_over.ts";
import { inFlight } from "./in_flight.ts";

/** What {@link logAgent} reads of an agent: its live chat and its specialists. */
export interface LoggableAgent {
  /** The live conversation (null before `start()`: logged as the start chat). */
  currentChat?: Message[] | null;
  /** The seed messages. */
  startChat?: Message[];
  /** Live specialists by `"<Agent>/<conversation>"`. */
  chats?: Map<string, LoggableAgent> | Record<string, LoggableAgent> | null;
}

function entriesOf(
  chats: LoggableAgent["chats"],
): [string, LoggableAgent][] {
  if (chats === null || chats === undefined) return [];
  return chats instanceof Map ? [...chats.entries()] : Object.entries(chats);
}

function checkKey(key: string): void {
  const parts = key.split("/");
  if (parts.some((p) => p === "" || p === "." || p === "..")) {
    throw new ScoutError("invalid_input", `Society key "${key}" is not "<Agent>/<conversation>"`);
  }
}

/**
 * The log files an agent produces, as `[relative path, messages]` pairs under
 * `log/` (society entries first, depth-first, then `agent.chat`).
 *
 * @param agent the agent
 * @param subdir optional sub-directory of `log/`
 * @returns relative paths (inside `.files/`) and the chats to print there
 *
 * @example
 * ```ts
 * import { agentLogFiles } from "./log.ts";
 * const worker = { currentChat: [{ role: "user", content: "hi" }] };
 * agentLogFiles({ currentChat: [], chats: { "Worker/c1": worker } }).map(([p]) => p);
 * // ["log/society/Worker/c1.chat", "log/agent.chat"]
 * ```
 */
export function agentLogFiles(agent: LoggableAgent, subdir?: string): [string, Message[]][] {
  const base = subdir === undefined || subdir === "" ? "log" : `log/${subdir}`;
  const out: [string, Message[]][] = [];
  // agents on the path from the root: a delegate cycle (A hands off to B, B to A) links back
  // to one of them, whose log is already that ancestor's file
  const path = new Set<LoggableAgent>([agent]);
  const society = (a: LoggableAgent, dir: string): void => {
    for (const [key, other] of entriesOf(a.chats)) {
      checkKey(key);
      // a specialist a restarted delegate carried over: the ended conversation's, not this one's
      if (path.has(other) || isCarriedOver(a, other)) continue;
      out.push([`${dir}/society/${key}.chat`, chatOf(other)]);
      path.add(other);
      society(other, `${dir}/society/${key}`);
      path.delete(other);
    }
  };
  society(agent, base);
  out.push([`${base}/agent.chat`, chatOf(agent)]);
  return out;
}

function chatOf(a: LoggableAgent): Message[] {
  const chat = a.currentChat ?? a.startChat ?? [];
  const paid = inFlight(a); // a running ask's inferences so far (none once it ended)
  return paid.length === 0 ? chat : [...chat, ...paid];
}

/**
 * Writes an agent's logs into a job's `.files/log/` and replaces the job's
 * `dependencies` info by the absolute paths of its direct dependencies.
 *
 * @param job the running job's context
 * @param agent the agent to log
 * @param subdir optional sub-directory of `log/` (tasks driving several agents)
 * @returns the absolute paths written
 * @throws ScoutError `io` when a file cannot be written
 *
 * @example
 * ```ts ignore
 * await logAgent(job, agent);               // log/agent.chat, log/society/Worker/c1.chat
 * await logAgent(job, critic, "critic-1");  // log/critic-1/agent.chat
 * ```
 */
export async function logAgent(
  job: JobContext,
  agent: LoggableAgent,
  subdir?: string,
): Promise<string[]> {
  if (subdir !== undefined && !insideLog(subdir)) {
    throw new ScoutError("invalid_input", `Log sub-directory must stay inside log/: "${subdir}"`, {
      file: job.path,
    });
  }
  const written: string[] = [];
  for (const [rel, messages] of agentLogFiles(agent, subdir)) {
    written.push(await writeJobFile(job.path, rel, print(messages)));
  }
  await job.updateInfo({ dependencies: job.dependencies.map((d) => d.path) });
  return written;
}

function insideLog(subdir: string): boolean {
  const clean = posix.normalize(`log/${subdir.replaceAll("\\", "/")}`);
  return !isAbsolute(subdir) && clean.startsWith("log/") && clean !== "log/";
}
