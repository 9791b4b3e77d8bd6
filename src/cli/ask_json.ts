/**
 * The `--json` documents of `llm ask` / `agent ask` (`llm_ask_run.ts`): an
 * answer's, and `--dry-run`'s messages; and the result an inference hands
 * back to them.
 *
 * @module
 */
import { print } from "../chat/print.ts";
import { type TokenTotals, tokenTotals } from "../chat/trace.ts";
import type { Message } from "../chat/types.ts";
import type { AskResult } from "../llm/ask.ts";
import { type Io, warn } from "./io.ts";
import { runTotalUsage, type RunUsage } from "./run_usage.ts";
import { jsonText } from "../util/json_text.ts";

/** Version of the `--json` output shape. */
export const LLM_ASK_JSON_VERSION = 1;

/**
 * An inference's result as `agent ask` may report it: an answer that came
 * from a job (the task route) names it, and brings its usage when the
 * answer's own messages (the projection) carry none.
 */
export type HookResult = AskResult & {
  job?: string;
  usage?: TokenTotals;
  totalUsage?: RunUsage;
};

/**
 * `--dry-run`: the messages that would be sent, as a chat or (`--json`) JSON.
 *
 * @param messages the messages
 * @param json whether `--json` was given
 * @param io where they go (stdout)
 */
export function printDryRun(messages: Message[], json: boolean, io: Io): void {
  const shown = json
    ? jsonText(
      { version: LLM_ASK_JSON_VERSION, dry_run: true, messages: jsonMessages(messages) },
      2,
    )
    : print(messages).replace(/^\n/, "");
  io.stdout.write(shown + "\n");
}

/**
 * The `--json` object of an answer.
 *
 * @param result the inference's result
 * @param io the run's I/O (warnings; env and cwd for the receipts' usage)
 * @param output the chat it was saved to, or null
 * @returns the document
 */
export async function answerJson(
  result: HookResult,
  io: Io,
  output: string | null,
): Promise<Record<string, unknown>> {
  // with the specialists' inferences its receipts hold (what `llm prov` counts)
  const total = result.totalUsage ??
    await runTotalUsage(result.messages, result.messages, { env: io.env, cwd: io.cwd });
  for (const w of total.warnings) warn(io, `total_usage leaves out: ${w.message}`);
  return {
    version: LLM_ASK_JSON_VERSION,
    answer: result.text,
    cached: result.cached,
    endpoint: result.endpoint,
    backend: result.backend,
    model: result.model,
    ...(result.job !== undefined ? { job: result.job } : {}),
    usage: result.usage ?? tokenTotals([result.messages]),
    total_usage: total.totals,
    usage_warnings: total.warnings,
    messages: jsonMessages(result.messages),
    output,
  };
}

/** Messages as `--json` prints them: role and content (null when absent). */
function jsonMessages(messages: readonly Message[]): { role: string; content: unknown }[] {
  return messages.map((m) => ({ role: m.role, content: m.content ?? null }));
}
