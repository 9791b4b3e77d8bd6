/**
 * A `--json` command stopped by SIGINT, SIGTERM or SIGHUP prints one JSON
 * error document on stdout, as a failed one does (R128-6): before, `llm ask
 * --json` waiting on its provider or `workflow task --json` whose task sleeps
 * printed nothing, and `… --json | jq` read empty input. A command that takes
 * no signal of its own still ends by the signal's default disposition, at
 * once, without a document (R130-1: listeners taken for every `--json`
 * command left one blocked in a synchronous wait deaf to Ctrl-C). The document says which signal (`"code":"interrupted"`,
 * `"signal"`); the exit code stays 130/143/129. `workflow task`'s carries
 * its job's fields and the stderr line's words, as its failure's (R137-6). Real processes: `cli.ts` from
 * source and the built binary; a loopback provider server that holds its
 * reply.
 */
import assert from "node:assert/strict";
import { cpSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import {
  BINARY,
  buildBinary,
  DENO,
  homeIn,
  ROOT,
  SCOUT_SOURCE_ARGS,
  tempDir,
} from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { readInfo, userWorkflow } from "../workflow/cli_support.ts";
import { waitUntil } from "../support/wait.ts";

const SIGNALS = [
  ["SIGINT", 130, "Interrupted"],
  ["SIGTERM", 143, "Terminated"],
  ["SIGHUP", 129, "Hangup"],
] as const;

type Via = "source" | "binary";

/** Starts scout-ai (from source or the binary) with piped stdin, stdout and stderr. */
function start(via: Via, args: string[], dir: string, env: Record<string, string>) {
  const [cmd, pre] = via === "source" ? [DENO, [...SCOUT_SOURCE_ARGS]] : [BINARY, []];
  return new Deno.Command(cmd, {
    args: [...pre, ...args],
    cwd: dir,
    env: { ...homeIn(dir), HOME: dir, NO_COLOR: "1", ...env },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Polls `ready` every 20 ms (30 s at most), then gives the process 300 ms more. */
async function until(ready: () => boolean, what: string): Promise<void> {
  await waitUntil(what, ready);
  await new Promise((r) => setTimeout(r, 300));
}

/** Sends `signal`, waits for the end; the exit code, stdout and stderr. */
async function stop(child: Deno.ChildProcess, signal: Deno.Signal) {
  child.kill(signal);
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/**
 * The one document on stdout, checked: the interrupt by `signal`, in the
 * word of the stderr line (`stderrLine` false: a command that runs no job
 * and asks nothing printed no such line, and prints none).
 */
function assertInterruptDocument(
  r: { stdout: string; stderr: string },
  signal: string,
  word: string,
  stderrLine = true,
): void {
  const lines = r.stdout.split("\n").filter((l) => l !== "");
  assert.equal(lines.length, 1, `one document: ${r.stdout} (stderr: ${r.stderr})`);
  assert.deepEqual(JSON.parse(lines[0]!), {
    version: 1,
    status: "error",
    error: word,
    code: "interrupted",
    signal,
  });
  if (!stderrLine) return;
  assert.match(r.stderr, new RegExp(`^scout-ai: ${word}`, "m"), "the stderr line stays");
}

/** `llm ask` (`--json` unless `json` is false) on a provider holding its reply, stopped by `signal`. */
async function askStopped(via: Via, signal: Deno.Signal, json = true) {
  await using d = await tempDir();
  let release = () => {};
  const held = new Promise<void>((r) => release = r);
  await using srv = await startProviderServer();
  srv.script({ text: "late", until: held });
  try {
    const ask = ["llm", "ask", "-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "hi"];
    const child = start(via, json ? [...ask, "--json"] : ask, d.path, { OPENAI_API_KEY: "sk-x" });
    await until(() => srv.requests.length > 0, "the provider's request");
    return await stop(child, signal);
  } finally {
    release();
  }
}

for (const [signal, code, word] of SIGNALS) {
  Deno.test(`llm ask --json: ${signal} while the provider answers prints the interrupt as JSON, exit ${code}`, async () => {
    const r = await askStopped("source", signal);
    assert.equal(r.code, code, r.stderr);
    assertInterruptDocument(r, signal, word);
  });
}

const SLEEPY = `export default (api) => api.workflow("Sleepy", { tasks: {
  nap: { type: "string", run: (_i, job) => new Promise((resolve) => {
    const t = setTimeout(() => resolve("woke"), 60000);
    job.signal.addEventListener("abort", () => { clearTimeout(t); resolve("stopped"); });
  }) },
} });
`;

/** `workflow task Sleepy nap --json` (with `flags`), stopped by `signal` once its job has started. */
async function napStopped(via: Via, signal: Deno.Signal, flags: string[] = []) {
  await using d = await tempDir();
  const wf = userWorkflow(d.path, "Sleepy", SLEEPY);
  const path = join(d.path, "home", "var", "jobs", "Sleepy", "nap", "Default");
  const child = start(via, ["workflow", "task", wf, "nap", "--json", ...flags], d.path, {});
  await until(() => readInfo(path)?.status === "start", `job ${path} to start`);
  const r = await stop(child, signal);
  return { ...r, path, status: readInfo(path)?.status };
}

/**
 * `workflow task`'s interrupt document: the interrupt's fields, its `error`
 * the stderr line's words, and the job's fields as a failed run's document
 * has them (R137-6: the job was left out).
 */
function assertJobInterruptDocument(
  r: { stdout: string; stderr: string; path: string },
  signal: string,
  word: string,
): void {
  const lines = r.stdout.split("\n").filter((l) => l !== "");
  assert.equal(lines.length, 1, `one document: ${r.stdout} (stderr: ${r.stderr})`);
  const said = `${word} (job "${r.path}" recorded as aborted)`;
  assert.deepEqual(JSON.parse(lines[0]!), {
    version: 1,
    path: r.path,
    shortPath: "Sleepy/nap/Default",
    status: "error",
    error: said,
    code: "interrupted",
    signal,
    jobStatus: "aborted",
  });
  assert.ok(r.stderr.includes(`scout-ai: ${said}\n`), `the stderr line stays: ${r.stderr}`);
}

for (const [signal, code, word] of SIGNALS.slice(0, 2)) {
  Deno.test(`workflow task --json: ${signal} while the task sleeps prints the interrupt as JSON with the job's fields, exit ${code}`, async () => {
    const r = await napStopped("source", signal);
    assert.equal(r.code, code, r.stderr);
    assertJobInterruptDocument(r, signal, word);
    assert.equal(r.status, "aborted", "the job is recorded aborted, as before");
  });
}

Deno.test("workflow task --deploy local --json: SIGTERM prints the interrupt with the job's fields, exit 143", async () => {
  const r = await napStopped("source", "SIGTERM", ["--deploy", "local"]);
  assert.equal(r.code, 143, r.stderr);
  assertJobInterruptDocument(r, "SIGTERM", "Terminated");
  assert.equal(r.status, "aborted");
});

Deno.test("kb query --json blocked on another process's index lock still dies at once on SIGINT (R130-1)", async () => {
  await using d = await tempDir();
  const kb = join(d.path, "kb");
  cpSync(join(ROOT, "fixtures", "kb", "family"), kb, { recursive: true });
  const args = ["kb", "query", kb, "siblings", "Dani", "--json"];
  const built = await start("source", args, d.path, {}).output();
  assert.equal(built.code, 0, new TextDecoder().decode(built.stderr));
  // the index gone and its build lock held by a live process of this host: the query waits
  const index = join(kb, ".scout-ai-index", "siblings.idx");
  rmSync(index);
  const holder = new Deno.Command("sleep", { args: ["600"] }).spawn();
  try {
    writeFileSync(`${index}.lock`, `${holder.pid}@${hostname()}`);
    const child = start("source", args, d.path, {});
    await new Promise((r) => setTimeout(r, 1500));
    child.kill("SIGINT");
    // a regression waits for the lock (10 minutes): bounded here, then killed
    const bound = setTimeout(() => child.kill("SIGKILL"), 20_000);
    const out = await child.output();
    clearTimeout(bound);
    assert.equal(out.signal, "SIGINT", `not ended by the SIGINT (code ${out.code})`);
    assert.equal(new TextDecoder().decode(out.stdout), "", "no document: nothing listened");
  } finally {
    holder.kill("SIGKILL");
    await holder.status;
  }
});

Deno.test("binary: llm ask --json on SIGINT and workflow task --json on SIGHUP print the interrupt as JSON", async () => {
  await buildBinary();
  const ask = await askStopped("binary", "SIGINT");
  assert.equal(ask.code, 130, ask.stderr);
  assertInterruptDocument(ask, "SIGINT", "Interrupted");
  const nap = await napStopped("binary", "SIGHUP");
  assert.equal(nap.code, 129, nap.stderr);
  assertJobInterruptDocument(nap, "SIGHUP", "Hangup");
});

Deno.test("llm ask without --json: an interrupt prints nothing on stdout, as before", async () => {
  const r = await askStopped("source", "SIGINT", false);
  assert.equal(r.code, 130, r.stderr);
  assert.equal(r.stdout, "");
  assert.equal(r.stderr, "scout-ai: Interrupted\n");
});
