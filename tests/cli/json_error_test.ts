/**
 * A `--json` command that fails prints one JSON error document on stdout
 * (R128-6): `llm ask --json` after a provider's HTTP 400 printed nothing, so
 * `… --json | jq` read empty input, while `workflow task --json` printed
 * `{"version":1,…,"status":"error","error":…}`. The exit code stays; a
 * command that answered with its own document gets no second one; a usage
 * error (exit 2) prints none, as before. Real `scout-ai` subprocesses.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runMain, runScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

const BAKING = join(ROOT, "fixtures", "workflows", "Baking");

/** The one JSON line of a stdout. */
function oneDocument(stdout: string): Record<string, unknown> {
  const lines = stdout.split("\n").filter((l) => l !== "");
  assert.equal(lines.length, 1, stdout);
  return JSON.parse(lines[0]!);
}

Deno.test("llm ask --json: a provider's HTTP 400 prints the error as JSON, exit 1", async () => {
  await using d = await tempDir();
  await using srv = await startProviderServer({
    fallback: () => ({ status: 400, message: "bad model" }),
  });
  const env = { SCOUT_HOME: join(d.path, "home"), OPENAI_API_KEY: "sk-x" };
  const r = await runScout(
    ["llm", "ask", "-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "hi", "--json"],
    { env, cwd: d.path },
  );
  assert.equal(r.code, 1, r.stderr);
  const doc = oneDocument(r.stdout);
  assert.equal(doc.version, 1);
  assert.equal(doc.status, "error");
  assert.match(String(doc.error), /bad model/);
  assert.match(r.stderr, /^scout-ai: .*bad model/m, "the stderr line stays");
  assert.ok(r.stderr.includes(String(doc.error)), "the same words as on stderr");
});

Deno.test("--json failures: chat parse, llm prov print the document; workflow task/info print theirs once", async () => {
  await using d = await tempDir();
  const o = { env: { SCOUT_HOME: join(d.path, "home") }, cwd: d.path };
  for (const args of [["chat", "parse", "nope.chat"], ["llm", "prov", "nope.chat"]]) {
    const r = await runScout([...args, "--json"], o);
    assert.equal(r.code, 1, `${args}: ${r.stderr}`);
    const doc = oneDocument(r.stdout);
    assert.deepEqual(Object.keys(doc), ["version", "status", "error"], args.join(" "));
    assert.match(String(doc.error), /nope\.chat/);
  }
  const task = await runScout(["workflow", "task", BAKING, "broken", "--json"], o);
  assert.equal(task.code, 1, task.stderr);
  assert.equal(oneDocument(task.stdout).jobStatus, "error", "its own document, and only it");
  const info = await runScout(["workflow", "info", join(d.path, "nojob"), "--json"], o);
  assert.equal(info.code, 1, info.stderr);
  assert.equal(oneDocument(info.stdout).status, "notfound");
});

Deno.test("--json: a usage error prints nothing on stdout, exit 2", async () => {
  await using d = await tempDir();
  const o = { env: { SCOUT_HOME: join(d.path, "home") }, cwd: d.path };
  const r = await runScout(["workflow", "task", BAKING, "cak", "--json"], o);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stdout, "");
});

Deno.test("agent kb NAME list|query --json: a failure prints the document, as kb list|query (R137-1)", async () => {
  await using d = await tempDir();
  const home = { SCOUT_HOME: join(d.path, "home") };
  const kbAgents = {
    cwd: d.path,
    env: { ...home, SCOUT_AGENT_PATH: join(ROOT, "fixtures/kb/agents") },
  };
  const agents = { cwd: d.path, env: { ...home, SCOUT_AGENT_PATH: join(ROOT, "fixtures/agents") } };
  const cases: [string[], typeof agents, RegExp][] = [
    [
      ["agent", "kb", "Genealogist", "query", "nosuchdb", "X"],
      kbAgents,
      /Unknown database "nosuchdb"/,
    ],
    [["agent", "kb", "Planner", "list"], agents, /Knowledge base directory not found/],
    [["kb", "query", join(ROOT, "fixtures/kb/family"), "nosuchdb", "X"], agents, /nosuchdb/],
  ];
  for (const [args, o, re] of cases) {
    const r = await runMain([...args, "--json"], o);
    assert.equal(r.code, 1, `${args.join(" ")}: ${r.stderr}`);
    const doc = oneDocument(r.stdout);
    assert.deepEqual([doc.version, doc.status], [1, "error"], args.join(" "));
    assert.match(String(doc.error), re);
    assert.ok(r.stderr.includes(String(doc.error)), "the stderr line's words");
  }
  // without --json: no document
  const text = await runMain(["agent", "kb", "Planner", "list"], agents);
  assert.deepEqual([text.code, text.stdout], [1, ""]);
});

Deno.test("every commander program of the CLI is built by cliProgram (the --json watch, R137-1)", async () => {
  const cli = join(ROOT, "src", "cli");
  for await (const e of Deno.readDir(cli)) {
    if (!e.isFile || e.name === "cli_program.ts") continue;
    const text = await Deno.readTextFile(join(cli, e.name));
    // code, not a doc comment's example (help_path.ts has one)
    assert.doesNotMatch(
      text,
      /^(?!\s*(\*|\/\/)).*new Command\(/m,
      `${e.name}: use cliProgram (src/cli/cli_program.ts)`,
    );
  }
});
