/**
 * `scout-ai llm process [dir]` and `scout-ai llm process_queries [dir]`
 * (`agents.md` §5.6): the queue workers that answer relayed requests on the
 * machine holding the keys or GPUs. The loop is `llm/queue.ts`; this file
 * registers the commands and turns a request into an ask.
 *
 * @module
 */
import type { Command } from "@commander-js/extra-typings";
import { join } from "node:path";
import { existsSync } from "node:fs";
import { ScoutError, usageError } from "../errors.ts";
import { isDirectory } from "../util/fs.ts";
import type { CliContext } from "./context.ts";
import { keepIgnored, listenableSignals } from "../util/ignored_signals.ts";
import { fittedHelp } from "./help_layout.ts";
import { jsonText } from "../util/json_text.ts";

type ProcessFlags = { once?: boolean; interval: string; json?: boolean };

function intervalMs(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw usageError(`--interval needs seconds > 0, got "${v}"`);
  return Math.round(n * 1000);
}

async function runWorker(
  ctx: CliContext,
  kind: "process" | "process_queries",
  dirArg: string | undefined,
  o: ProcessFlags,
): Promise<void> {
  const { resolve } = await import("node:path");
  const { scoutHome } = await import("../config/home.ts");
  const { runQueue } = await import("../llm/queue.ts");
  const { answerAsk, answerQuery } = await import("./llm_process_run.ts");
  const io = ctx.io;
  const interval = intervalMs(o.interval); // a usage error before anything is said (R81-14)
  const dir = dirArg !== undefined
    ? resolve(io.cwd, dirArg)
    : join(scoutHome(io.env), "var", kind === "process" ? "ask" : "query");
  if (existsSync(dir) && !isDirectory(dir)) {
    // not "ENOTDIR: not a directory, mkdir '<dir>/reply'" (R81-12)
    throw new ScoutError(
      "invalid_input",
      `Cannot use "${dirArg ?? dir}" as the queue directory: it is not a directory`,
      { file: dirArg ?? dir },
    );
  }
  const ac = new AbortController();
  const real = typeof process !== "undefined" && io.env === process.env;
  const stop = () => ac.abort(new DOMException("Stopped", "AbortError"));
  // SIGHUP: a dropped session, as SIGTERM; none started ignored (nohup) is taken (R107-2)
  const taken = real ? listenableSignals(["SIGINT", "SIGTERM", "SIGHUP"] as const) : [];
  for (const s of taken) process.once(s, stop);
  keepIgnored();
  // status lines, not warnings (R110-10): `--log 6` hides no worker's state, `grep warning:`
  // finds none; plain lines on stderr, terminal or not (a cluster job's or nohup's log, R167-9)
  const status = (line: string) => io.stderr.write(`${kind}: ${line}\n`);
  if (!o.once) status(`watching ${dir} (Ctrl-C stops)`);
  try {
    const stats = await runQueue({
      dir,
      out: kind === "process" ? "reply" : "response",
      answer: (request, id, signal) =>
        kind === "process" ? answerAsk(request, io, signal) : answerQuery(request, id, io, signal),
      once: o.once === true,
      intervalMs: interval,
      signal: ac.signal,
      log: status,
      // a request put back (a full disk, a dead worker's claim): said terminal or not (R167)
      notice: status,
      // a directory given by mistake keeps its files; said once each, terminal or not (R164-2)
      skip: (file) => status(`left ${file} in place: not a request (<md5 hex>.json)`),
    });
    if (o.json) {
      io.stdout.write(jsonText({ version: 1, dir, ...stats }) + "\n");
    } else if (o.once || ac.signal.aborted) {
      status(`${stats.answered} answered, ${stats.failed} failed (${dir})`);
    }
    // `--once` in a script or cron job: a failed request is a failed run (R167-9)
    ctx.exitCode = o.once && stats.failed > 0 ? 1 : 0;
  } finally {
    for (const s of taken) process.removeListener(s, stop);
  }
}

/** `llm process --help`'s text after the options. */
const PROCESS_HELP = `
Each request <id>.json is {"question": <chat text or [{role, content}…]>, …options}, written
by a client with "backend: relay" (scout-ai or Ruby Scout); <id> is the MD5 hex digest the
client names it by (32 hex digits), and other files are left in place. The worker asks with its own
endpoints and keys and writes the answer text, JSON-encoded, to reply/<id>.json (atomically);
a request that fails gets {"error": "…"} there and is moved to failed/. Requests are claimed
by a rename into working/ beside a holder record (working/<id>.holder, "<pid>@<host>"), so
several workers can share a directory; a worker puts back, when it starts and when idle, the
claims of workers that died (this host) or stopped refreshing theirs for 60 s (any host). SIGINT/SIGTERM stop the
worker; the request being answered goes back to the queue.

A client sets the model, generation parameters, format, reasoning/text options and backend; the
worker drops url, key, endpoint, relay, server, ssh_command, agent and any other routing,
credential, path or command option (one warning each), and reads the question as plain messages:
chat text is not compiled, and mcp:/file:/import:/task:/exec_task:/tool:/option: lines fail the
request.

Run it in the background on the machine with the keys (e.g. "scout-ai llm process
/shared/scout-queue &", with clients using "server: /shared/scout-queue"), or under a
supervisor. On stderr, terminal or not, it says "process: watching DIR (Ctrl-C stops)" when it
starts, one line per request ("process: answered ID", "process: failed ID: why") and its
counts when it stops (plain status lines, not warnings: --log 6 keeps them). With --once the
exit status is 1 when any request failed (0 otherwise; a stopped watching worker exits 0).
Nothing is removed on a schedule: reply/ keeps answers, failed/ failed requests (the README's
"queue directory" table has a find recipe to clean them by age). Over ssh, clients use "server: user@host"
(the queue ~/.scout/var/ask there) or "server: user@host:~/queue" for "llm process
~/queue"; ssh_command / SCOUT_SSH hold the ssh command and its options, split as a POSIX
shell splits words (quotes, backslashes; no expansion), e.g.
SCOUT_SSH="ssh -i '/keys/my key' -o 'ProxyCommand=ssh -W %h:%p bastion'".

Examples:
  scout-ai llm process --once                  # answer what $SCOUT_HOME/var/ask holds, then exit
  scout-ai llm process --once --json | jq .answered`;

/** `llm process_queries --help`'s text after the options. */
const QUERIES_HELP = `
Each request <id>.json (<id>: 32 hex digits, as in "llm process") is [messages, options],
written by a client asking with the "relay: <server>" option; the worker sends that one request with its own keys and saves the
provider's raw response in response/<id>.json, which the client then processes itself (so
tools run on the client). Failures, claims, signals and the status lines on stderr
("process_queries: watching DIR …") work as in "llm process".

Examples:
  scout-ai llm process_queries --once          # answer what $SCOUT_HOME/var/query holds`;

/**
 * Registers `llm process` and `llm process_queries`.
 *
 * @param llm the `llm` command
 * @param ctx invocation context
 */
export function registerLlmProcess(llm: Command, ctx: CliContext): void {
  for (const kind of ["process", "process_queries"] as const) {
    const ask = kind === "process";
    llm.command(kind)
      .description(
        ask
          ? "answer relayed questions: <dir>/<id>.json → <dir>/reply/<id>.json"
          : "answer relayed queries with the raw provider response: <dir>/response/<id>.json",
      )
      .argument(
        "[dir]",
        `queue directory (default $SCOUT_HOME/var/${ask ? "ask" : "query"})`,
      )
      .option("--once", "answer what is queued now, then exit")
      .option("--interval <seconds>", "poll interval when idle", "1")
      .option("--json", "print {version, dir, answered, failed} when done")
      .addHelpText("after", fittedHelp(ask ? PROCESS_HELP : QUERIES_HELP))
      .action(async (...args: unknown[]) => {
        const [dir, o] = args as [string | undefined, ProcessFlags];
        await runWorker(ctx, kind, dir, o);
      });
  }
}
