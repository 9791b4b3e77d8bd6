/**
 * Arguments, environment variables and a working directory that are not
 * UTF-8 stop the program before it reads or writes anything (R102-3, R102-4):
 * one line, exit 2. Bun and Deno decode them with each bad byte replaced by
 * U+FFFD, so `-o "$(printf 'x\xe9.chat')"` wrote a new file `x�.chat` and left
 * the named one alone, `SCOUT_HOME` went to a sibling store, and a working
 * directory so named became a sibling directory the binary made (Deno threw
 * instead, on the variable or the directory). No path holding such bytes can
 * be named from JavaScript, so the only honest answer is to say so.
 *
 * Cold start pays nothing more than a scan for U+FFFD in the decoded values
 * ({@link suspectInput}); only a value that has one is checked against the
 * bytes the kernel holds (`raw_process.ts`, loaded then), since a U+FFFD may
 * be one the user typed (valid UTF-8 `EF BF BD`), which stays accepted.
 * Without `/proc`, a U+FFFD in a decoded value counts as a replaced byte.
 *
 * The check belongs to the CLI entry (`cli.ts`), before `llm prov` starts its
 * child (which would get the replaced text as valid UTF-8); the library takes
 * strings and never sees bytes.
 *
 * @module
 */
import type { Suspects } from "./utf8_verdict.ts";

/** The replacement character, what the runtimes decode a byte that is not UTF-8 to. */
const FFFD = "\uFFFD";

/**
 * Environment variables scout-ai reads by name (`tests/cli/utf8_guard_test.ts`
 * checks that every name read under `src/` is here); every other `SCOUT_*`
 * variable is checked too, since SLURM jobs get them all — under Bun (the
 * binary) only: Deno leaves a variable that is not UTF-8 out of `process.env`'s
 * names. Left out: `NO_COLOR` and `TERM` (only whether they are set, or
 * `dumb`, matters), `NODE_ENV`/`BUN_ENV` (set for user code, never read), the
 * JavaScriptCore options of `respawn.ts`, and Windows' `USERPROFILE`.
 */
export const READ_ENV: readonly string[] = [
  "HOME",
  "TMPDIR", // os.tmpdir()
  "TMP", // a private temporary directory (util/process_temp_dir.ts)
  "TEMP",
  "TZ", // the local offset of .info times (util/local_offset.ts)
  ...["SCOUT_HOME", "SCOUT_JOBS_DIR", "SCOUT_BATCH_DIR", "SCOUT_AGENT_PATH", "SCOUT_AI_SELF"],
  ...["SCOUT_SSH", "SCOUT_RELAY_SERVER", "SCOUT_OFFLINE", "SCOUT_NO_ASK_CACHE"],
  ...["SCOUT_LOCK_MAX_AGE", "SCOUT_SLURM_WAIT_RETRIES", "SCOUT_CHAT_JOB_EXCEPTION"],
  ...["SCOUT_NO_RECOVERABLE_ERROR", "SCOUT_MAX_AGENT_CALLS", "SCOUT_MAX_AGENT_DEPTH"],
  ...["SCOUT_MAX_REPLY_TOOL_CALLS", "SCOUT_MAX_TOOL_ROUNDS"],
  // a SLURM batch job's id and CPUs, kept in the .info of the jobs it computes (workflow_deploy.ts)
  ...["SLURM_JOB_ID", "SLURM_CPUS_PER_TASK"],
  // the endpoint and backend (config/endpoints.ts, llm/settings.ts, llm/ask_backend.ts)
  ...["ASK_ENDPOINT", "LLM_ENDPOINT", "ENDPOINT", "LLM", "ASK", "ASK_BACKEND", "LLM_BACKEND"],
  ...["ASK_PERSIST", "LLM_PERSIST", "PERSIST", "MODEL", "ASK_AGENTS"],
  // the backends' url, key and model (llm/backends/*.ts)
  ...["OPENAI_URL", "OPENAI_KEY", "OPENAI_API_KEY", "OPENAI_MODEL"],
  ...["ANTHROPIC_URL", "ANTHROPIC_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_MODEL"],
  ...["OLLAMA_URL", "OLLAMA_KEY", "OLLAMA_MODEL", "VLLM_URL", "VLLM_KEY", "VLLM_MODEL"],
  ...["RESPONSES_URL", "RESPONSES_KEY", "RESPONSES_MODEL"],
  ...["OPENWEBUI_URL", "OPENWEBUI_KEY", "OPENWEBUI_MODEL"],
  ...["HUGGINGFACE_URL", "HF_TOKEN", "HUGGINGFACE_KEY", "HUGGINGFACE_MODEL"],
  ...["BEDROCK_MODEL_ID", "BEDROCK_URL", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE"],
  ...["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"],
  ...["AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE"],
  // the prompt strategies' settings (prompt/settings.ts)
  ...["FULL_TOOL_CALLS", "FULL_TOOL_OUTPUTS", "MAX_TOOL_CALLS", "MAX_TOOL_OUTPUTS"],
  ...["MAX_TOOL_CHARS", "EPOCH_TOOL_CALL_THRESHOLD", "EPOCH_FULL_TOOL_CALLS"],
  ...["EPOCH_COMPACTED_TOOL_CALLS", "EPOCH_SIZE"],
];

/** The prefix of the variables read (and passed to SLURM jobs) by prefix. */
export const READ_ENV_PREFIX = "SCOUT_";

/**
 * The inputs that may not be UTF-8: decoded values with a U+FFFD, and those
 * the runtime refused to decode (Deno). Costs one scan of each value.
 *
 * @param args the program's arguments
 * @param env the environment
 * @param cwd reads the working directory (`process.cwd`)
 * @returns the suspects, or null when there are none
 */
export function suspectInput(
  args: readonly string[],
  env: Record<string, string | undefined>,
  cwd: () => string,
): Suspects | null {
  const found: Suspects = { args: [], env: [] };
  args.forEach((a, i) => {
    if (a.includes(FFFD)) found.args.push(i);
  });
  const names = new Set(READ_ENV);
  for (const name of Object.keys(env)) if (name.startsWith(READ_ENV_PREFIX)) names.add(name);
  for (const name of names) {
    let value: string | undefined;
    try {
      value = env[name];
    } catch (e) {
      // Deno: "environment variable was not valid unicode"; anything else is the command's
      if (refusedAsText(e)) found.env.push({ name });
      continue;
    }
    if (value?.includes(FFFD)) found.env.push({ name, value });
  }
  try {
    const path = cwd();
    if (path.includes(FFFD)) found.cwd = { path };
  } catch (e) {
    // Deno: `File name or path "/d/bad\xE9" is not valid UTF-8`; any other failure (a removed
    // directory) is for the command to meet
    if (refusedAsText(e)) found.cwd = { error: (e as Error).message };
  }
  const none = found.args.length === 0 && found.env.length === 0 && found.cwd === undefined;
  return none ? null : found;
}

/** Whether Deno refused a value for not being UTF-8 (its `InvalidData` error). */
function refusedAsText(e: unknown): boolean {
  return e instanceof Error &&
    (e.name === "InvalidData" || /not valid (?:UTF-8|unicode)/i.test(e.message));
}

/**
 * The line to print when an argument, a variable scout-ai reads or the
 * working directory is not UTF-8 (the first found, in that order), or null.
 *
 * @param args the program's arguments
 * @param env the environment
 * @param cwd reads the working directory (default `process.cwd`)
 * @returns the message (without the `scout-ai: ` prefix), or null when all is UTF-8
 */
export async function nonUtf8Input(
  args: readonly string[],
  env: Record<string, string | undefined>,
  cwd: () => string = () => process.cwd(),
): Promise<string | null> {
  const suspects = suspectInput(args, env, cwd);
  if (suspects === null) return null;
  const [{ readRawProcess }, { nonUtf8Message }] = await Promise.all([
    import("./raw_process.ts"),
    import("./utf8_verdict.ts"),
  ]);
  const raw = readRawProcess({
    args: suspects.args.length > 0,
    env: suspects.env.length > 0,
    cwd: suspects.cwd !== undefined,
  });
  return nonUtf8Message(args, suspects, raw);
}
