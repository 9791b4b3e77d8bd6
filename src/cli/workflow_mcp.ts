/**
 * `scout-ai workflow mcp WORKFLOW [TASK…] [--http PORT] [--host H]` — serves
 * a workflow's tasks as MCP tools (`workflow.md` §6.5): over stdio (stdout
 * carries only MCP messages), or over Streamable HTTP bound to 127.0.0.1 by
 * default. Each call runs the task as a persisted job.
 *
 * `--json` (with `--http`): one line `{"version":1,"url"}` on stdout once
 * listening.
 *
 * @module
 */
import type { Command } from "@commander-js/extra-typings";
import { isScoutError, ScoutError, usageError } from "../errors.ts";
import type { CliContext } from "./context.ts";
import type { Io } from "./io.ts";
import { JOBS_DIR_HELP, loadWorkflowArgument, storeOptions, wfLib } from "./workflow_common.ts";
import { oneJobsDir } from "./jobs_dir.ts";
import { FIXTURE_EXAMPLES } from "./help_text.ts";
import { keepIgnored, listenableSignals } from "../util/ignored_signals.ts";
import { fittedHelp } from "./help_layout.ts";
import { jsonText } from "../util/json_text.ts";

/** Options of `workflow mcp`. */
export interface WorkflowMcpOptions {
  /** Workflow name or path. */
  workflow: string;
  /** Tasks to serve (empty = the exported tasks, else all). */
  tasks: string[];
  /** Serve Streamable HTTP on this port instead of stdio (0 = any free port). */
  http?: number;
  /** Bind address for `--http` (default 127.0.0.1). */
  host?: string;
  /** Jobs directory. */
  jobsDir?: string;
  /** Print `{"version":1,"url"}` once listening (HTTP). */
  json?: boolean;
  /** Ends an HTTP server (SIGINT/SIGTERM in the CLI). */
  signal?: AbortSignal;
}

/**
 * Runs `workflow mcp`: serves until stdin closes and the calls read are answered
 * (stdio), or the signal fires (HTTP).
 *
 * @param opts command options
 * @param io injected I/O
 * @returns exit code
 */
export async function runWorkflowMcp(opts: WorkflowMcpOptions, io: Io): Promise<number> {
  const lib = await wfLib();
  const wf = await loadWorkflowArgument(opts.workflow, io);
  const store = lib.storeFor(wf, storeOptions(opts, io, "write"));
  const jobOpts = { store, cwd: io.cwd, env: io.env };
  const mcp = await import("../tools/mcp/serve.ts");
  try {
    mcp.workflowMcpTools(wf, opts.tasks); // unknown tasks fail before serving
  } catch (e) {
    // a task the workflow has not is a mistake of the command line: exit 2, as in
    // `workflow task` (R81-14)
    if (!isScoutError(e, "task_not_found")) throw e;
    throw new ScoutError("usage", e.message, { cause: e });
  }
  if (opts.http === undefined) {
    await mcp.serveWorkflowStdio(wf, opts.tasks, jobOpts);
    // a call the client cancelled (an interrupted ask) leaves its job running, and the process
    // ends in a second (cli.ts): recorded aborted now, not left `start` (R91-5)
    const { abandonRunningJobs } = await import("../workflow/interrupt.ts");
    abandonRunningJobs("the end of its MCP client");
    return 0;
  }
  const { http, url, shutdown } = await mcp.serveWorkflowHttp(wf, opts.tasks, {
    ...jobOpts,
    port: opts.http,
    ...(opts.host ? { host: opts.host } : {}),
  });
  if (opts.json) io.stdout.write(jsonText({ version: 1, url }) + "\n");
  io.stderr.write(`Serving workflow ${wf.name} over MCP at ${url}\n`);
  // a signal records the running jobs aborted but lets us answer their calls before exiting
  const { holdInterruptExit, reportInterrupts } = await import("../workflow/interrupt.ts");
  const release = holdInterruptExit();
  let interrupted = 0;
  const unreport = reportInterrupts((signal, aborted) => {
    if (aborted.length > 0) interrupted = EXIT_CODES[signal] ?? 1;
  });
  try {
    await new Promise<void>((resolve) => {
      if (opts.signal?.aborted) resolve();
      opts.signal?.addEventListener("abort", () => resolve(), { once: true });
      http.once("close", () => resolve());
    });
    await shutdown("Server shutting down");
  } finally {
    unreport();
    release();
  }
  http.closeAllConnections?.();
  await new Promise<void>((resolve) => http.close(() => resolve()));
  return interrupted;
}

/** Exit codes after a signal ended jobs (128 + its number). */
const EXIT_CODES: Record<string, number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    throw usageError(`Invalid port "${value}": expected an integer 0-65535`);
  }
  return n;
}

/**
 * Registers `workflow mcp` under the `workflow` command.
 *
 * @param wf the `workflow` command
 * @param ctx invocation context
 */
export function registerWorkflowMcp(wf: Command, ctx: CliContext): void {
  wf.command("mcp")
    .description("serve a workflow's tasks as MCP tools (stdio, or Streamable HTTP)")
    .argument("<workflow>", "workflow name or path")
    .argument("[tasks...]", "tasks to serve (default: the exported tasks, else all)")
    .option("--http <port>", "serve Streamable HTTP on this port (0 = any free port)", port)
    .option("--host <address>", "bind address for --http", "127.0.0.1")
    .option("--jobs-dir <dir>", JOBS_DIR_HELP, oneJobsDir)
    .option("--json", "with --http: print {version, url} on stdout once listening")
    .addHelpText(
      "after",
      fittedHelp(
        "\nEach tool call runs the task as a persisted job (cached; `workflow info` and\n" +
          "`llm prov` see it) and answers with its result (bytes that are not UTF-8 as a\n" +
          "base64 resource); a failed job is an MCP tool error. A cancelled call aborts its\n" +
          "job (job.signal fires, recorded aborted; its lock held until the body returns)\n" +
          "unless another call waits on it. Over HTTP a client that initializes gets a\n" +
          "session (Mcp-Session-Id): a notifications/cancelled reaches only its own calls;\n" +
          "a request without a session is served alone and cancelled by disconnecting.\n" +
          "Over stdio, stdout carries the MCP messages: what a task prints with\n" +
          "process.stdout.write or console.log goes to stderr, but a child process\n" +
          "inheriting stdout, or a write to fd 1, goes into the stream and breaks it\n" +
          '(give children stdio: ["ignore", 2, 2] or "pipe", or use --http).\n' +
          "The server ends when stdin closes, once the calls already read are answered (so\n" +
          "`printf … |` works); over HTTP it runs until Ctrl-C and refuses (403) a Host or\n" +
          "Origin other than 127.0.0.1, localhost, [::1] or the --host address (DNS\n" +
          "rebinding). No client is trusted (over HTTP any local user can call): a chat it\n" +
          "gives (a chat task's chat, a chat input) holds plain messages only; an mcp:,\n" +
          "file:, import:, task:, tool:, option: or endpoint: line fails the call, naming\n" +
          "the line. A file or path input is a path on this machine the task reads with\n" +
          "your rights: serve only tasks whose inputs any client may choose. Tools are\n" +
          "annotated read-only, non-destructive, idempotent and closed-world. In a chat:\n" +
          "  mcp: stdio 'scout-ai workflow mcp Baking'\n\n" +
          `${FIXTURE_EXAMPLES}\n` +
          "  scout-ai workflow mcp fixtures/workflows/Baking < /dev/null\n" +
          "  scout-ai workflow mcp fixtures/workflows/Baking whisk cake --http 8808",
      ),
    )
    .action((workflow, tasks, o) => serveWorkflowMcp(ctx, { workflow, tasks, ...o }));
}

/** `workflow mcp`'s options as commander gives them, with its arguments. */
interface McpCommandOptions {
  workflow: string;
  tasks: string[];
  http?: number;
  host?: string;
  jobsDir?: string;
  json?: true;
}

/** Runs `workflow mcp` until stdin closes (stdio) or a signal (`--http`). */
async function serveWorkflowMcp(ctx: CliContext, o: McpCommandOptions): Promise<void> {
  // over stdio, stdout carries the MCP messages: a JSON document there (the address, or
  // the one a signal prints under --json) would be a stray line in the client's stream
  if (o.json && o.http === undefined) {
    throw usageError("--json prints the HTTP server's address: give --http PORT too");
  }
  const ac = new AbortController();
  const stop = () => ac.abort();
  // SIGHUP: a dropped session, as SIGTERM; none started ignored (nohup) is taken (R107-2)
  const taken = o.http !== undefined
    ? listenableSignals(["SIGINT", "SIGTERM", "SIGHUP"] as const)
    : [];
  for (const s of taken) process.once(s, stop);
  keepIgnored();
  try {
    ctx.exitCode = await runWorkflowMcp({
      workflow: o.workflow,
      tasks: o.tasks,
      ...(o.http !== undefined ? { http: o.http } : {}),
      ...(o.host !== undefined ? { host: o.host } : {}),
      ...(o.jobsDir !== undefined ? { jobsDir: o.jobsDir } : {}),
      json: Boolean(o.json),
      signal: ac.signal,
    }, ctx.io);
  } finally {
    for (const s of taken) process.removeListener(s, stop);
  }
}
