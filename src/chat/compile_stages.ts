/**
 * Compile stages 5–7 (`chat.md` §5.2): `config:` lines applied to the config
 * store, then the job-backed roles (`task`, `inline_task`, `exec_task`, then
 * `job`, `inline_job`) through the {@link JobRoleResolver}.
 *
 * @module
 */
import { addConfigEntry } from "../config/store.ts";
import { suggestedScope } from "../config/unscoped.ts";
import { isSecretName, looksLikeKey } from "../util/secrets.ts";
import { warnOnce } from "../util/warn_once.ts";
import { isScoutError } from "../errors.ts";
import type { Message } from "./types.ts";
import {
  type CompileContext,
  derive,
  errorAt,
  located,
  refOf,
  resolverFor,
} from "./compile_context.ts";
import { jobMessages, parseTaskLine, type TaskRequest } from "./compile_jobs.ts";

/**
 * Stage 5: applies and removes `config: key [value] [scope…]` messages (Ruby
 * `Chat.config` → `Scout::Config.set`): the entry matches as a line of
 * `etc/config` does — without scopes only a lookup without scopes reads it;
 * without a value it is nil. A line without even a key adds nothing. A line
 * without a scope warns once per sink (no lookup of a setting reads it).
 *
 * @param messages the messages
 * @param ctx the compile (its config store is mutated)
 * @returns the messages without `config`
 */
export function applyConfig(messages: readonly Message[], ctx: CompileContext): Message[] {
  const out: Message[] = [];
  for (const m of messages) {
    if (m.role !== "config") {
      out.push(m);
      continue;
    }
    const [key, value, ...scope] = refOf(m).split(/\s+/).filter((w) => w !== "");
    if (key === undefined) continue;
    const w = ctx.where.get(m);
    const source = w?.file === undefined
      ? "chat"
      : w.line === undefined
      ? w.file
      : `${w.file}:${w.line}`;
    addConfigEntry(ctx.opts.config, { key, value: value ?? null, tokens: scope, source });
    if (scope.length === 0) warnUnscopedLine(source, key, value);
  }
  return out;
}

// Ruby reads such a line only from a lookup without scopes, as a line of
// etc/config; older scout-ai read it everywhere: the rule is kept, and said
function warnUnscopedLine(source: string, key: string, value: string | undefined): void {
  const line = `config: ${key}${value === undefined ? "" : ` ${value}`}`;
  const secret = isSecretName(key) || looksLikeKey(value ?? "");
  const shown = secret ? `config: ${key} VALUE` : line;
  const fixed = `${secret ? `config: ${key} VALUE` : `config: ${key} ${value ?? "nil"}`} ${
    suggestedScope(key)
  }`;
  warnOnce(
    `${source} ${line} unscoped`,
    `${source === "chat" ? "the chat" : source}: "${shown}" has no scope, so it is not used: ` +
      `settings are looked up with scopes, and an entry without one is read only by a lookup ` +
      `without scopes (the Ruby Scout's rule; older scout-ai read it everywhere). ` +
      `To use it, give it a scope: "${fixed}"`,
  );
}

/**
 * Stage 6: `task`/`inline_task` create jobs (→ `job`/`inline_job` messages,
 * all produced together at the end of the stage); `exec_task` runs now
 * (→ a `user` message with the result).
 *
 * @param messages the messages
 * @param origin the chat file (absolute), if any
 * @param ctx the compile
 * @returns the messages with task lines replaced
 */
export async function runTasks(
  messages: readonly Message[],
  origin: string | undefined,
  ctx: CompileContext,
): Promise<Message[]> {
  const out: Message[] = [];
  const produce: string[] = [];
  let last: Message | undefined;
  for (const m of messages) {
    if (m.role !== "task" && m.role !== "inline_task" && m.role !== "exec_task") {
      out.push(m);
      continue;
    }
    const jobs = resolverFor(ctx, m);
    let req: TaskRequest;
    try {
      req = parseTaskLine(m.role, refOf(m));
    } catch (e) {
      throw located(ctx, m, e);
    }
    if (origin !== undefined) req.origin = origin;
    try {
      if (m.role === "exec_task") {
        const result = await jobs.execTask(req);
        out.push(derive(ctx, m, { role: "user", content: result }));
      } else {
        const path = await jobs.createJob(req);
        produce.push(path);
        last = m;
        const role = m.role === "task" ? "job" : "inline_job";
        out.push(derive(ctx, m, { role, content: path }));
      }
    } catch (e) {
      throw located(ctx, m, e);
    }
  }
  if (produce.length > 0) {
    try {
      await ctx.opts.jobs!.produceJobs(produce);
    } catch (e) {
      throw located(ctx, last!, e);
    }
  }
  return out;
}

/**
 * Stage 7: `job` becomes a tool call and its output; `inline_job` becomes a
 * `file` reference to the job's result (read in stage 8).
 *
 * @param messages the messages
 * @param ctx the compile
 * @returns the messages with job lines replaced
 */
export async function expandJobs(
  messages: readonly Message[],
  ctx: CompileContext,
): Promise<Message[]> {
  const out: Message[] = [];
  const report = ctx.opts.env.SCOUT_CHAT_JOB_EXCEPTION === "true";
  for (const m of messages) {
    if (m.role === "inline_job") {
      out.push(derive(ctx, m, { role: "file", content: refOf(m) }));
      continue;
    }
    if (m.role !== "job") {
      out.push(m);
      continue;
    }
    const jobs = resolverFor(ctx, m);
    const path = refOf(m);
    if (path === "") throw errorAt(ctx, m, "invalid_input", "job: requires a job path");
    try {
      const snapshot = await jobs.loadJob(path);
      for (const x of jobMessages(snapshot, path, report)) out.push(derive(ctx, m, x));
    } catch (e) {
      if (!isScoutError(e)) {
        throw errorAt(ctx, m, "job_failed", `Cannot load job "${path}": ${String(e)}`, {
          cause: e,
        });
      }
      throw located(ctx, m, e);
    }
  }
  return out;
}
