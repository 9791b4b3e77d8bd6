/**
 * The options of an ask from the command line (`llm ask`, structured or not, `agent
 * ask`), as the flags give them: a module of its own, so that the modules
 * that read them do not import the command's registration.
 *
 * @module
 */

/** Options of `llm ask` (with `schema`/`format`, structured output) and `agent ask`. */
export interface LlmAskOptions {
  /** Question words (joined by spaces); chat text is accepted. */
  question: string[];
  /** Chat file to continue. */
  chat?: string;
  /** Endpoint name. */
  endpoint?: string;
  /** Model. */
  model?: string;
  /** Backend. */
  backend?: string;
  /** Files put before the question (`file:` messages). */
  files: string[];
  /** Chat files imported before the question (`import:` messages, `-i a,b`). */
  imports?: string[];
  /** Workflows whose tasks become tools (`tool:` messages, `-w`). */
  workflows?: string[];
  /** Roles the compile accepts besides the chat roles (`--allow-role`). */
  allowRoles?: string[];
  /** Chat file the question and the new messages are appended to. */
  output?: string;
  /** `output` is the `-c` chat, given alone (Ruby: `-c` appends to its chat, R149-2). */
  chatAppends?: boolean;
  /** Stream the answer (default: when stdout is a terminal). */
  stream?: boolean;
  /** Print a JSON object instead of the answer. */
  json?: boolean;
  /** Use the inference cache (default true). */
  cache?: boolean;
  /** Offline replay: answers only from the inference cache (`not_cached` on a miss). */
  offline?: boolean;
  /** `key=value` options (provider parameters, `max_tool_rounds`…). */
  options: string[];
  /** Print the compiled messages instead of asking. */
  dryRun?: boolean;
  /** `--inline FILE`: answer the file's `# ask:` comments in place. */
  inline?: string;

  /** `-t`: template the question is put into (`agents.md` §5.3). */
  template?: string;
  /** `llm ask --schema`: schema file (JSON or YAML); absent = any JSON object. */
  schema?: string;
  /** Aborts the ask (SIGINT). */
  signal?: AbortSignal;
}
