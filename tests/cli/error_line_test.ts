/**
 * Error lines are bounded (R164-4): an argument of 100 KB was echoed in full
 * (twice by `llm ask -e`, about 200 KB on stderr). Each line is cut in the
 * middle past 8 KiB units and still names the argument's start and end;
 * a `--json` error document's message likewise.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ERROR_LINE_MAX } from "../../src/cli/error_line.ts";
import { runMain, runScout, tempDir } from "../support/cli.ts";

const ARG = `BEGIN${"x".repeat(100_000)}FINISH`;

/** Every line at most the bound plus its prefix and cut mark; the argument's ends named. */
function assertBounded(text: string, what: string): void {
  assert.ok(text.length < 2 * ERROR_LINE_MAX + 500, `${what}: ${text.length} characters`);
  for (const line of text.split("\n")) {
    assert.ok(line.length <= ERROR_LINE_MAX + 100, `${what}: a line of ${line.length}`);
  }
  assert.match(text, /BEGINx+ …\[\d+ characters cut\]… x+FINISH/, what);
}

Deno.test("llm ask -e <100 KB>: stderr stays bounded and names the start and end (R164-4)", async () => {
  await using t = await tempDir();
  const r = await runScout(["llm", "ask", "-e", ARG, "hi"], {
    env: { SCOUT_HOME: join(t.path, "home"), HOME: t.path },
    cwd: t.path,
  });
  assert.equal(r.code, 2, r.stderr.slice(0, 300));
  assert.match(r.stderr, /^scout-ai: Endpoint not found "BEGIN/);
  assertBounded(r.stderr, "llm ask -e");
});

Deno.test("usage errors of commander and of the commands, and failures, are bounded alike (R164-4)", async () => {
  await using t = await tempDir();
  const o = { env: { SCOUT_HOME: join(t.path, "home"), HOME: t.path }, cwd: t.path };
  const cases: [string[], number][] = [
    [["llm", "ask", `--${ARG}`], 2],
    [["chat", "parse", "a", "b", ARG], 2],
    [["system", "clean", "all", "--older", ARG], 2],
    [["llm", "process", "--interval", ARG], 2],
    [["llm", "ask", "-b", ARG, "hi"], 2],
    [["chat", "parse", ARG], 1],
  ];
  for (const [args, code] of cases) {
    const r = await runMain(args, o);
    const what = args.map((a) => a.slice(0, 12)).join(" ");
    assert.equal(r.code, code, `${what}: ${r.stderr.slice(0, 300)}`);
    assertBounded(r.stderr, what);
  }
  const json = await runMain(["chat", "parse", "--json", ARG], o);
  assert.equal(json.code, 1);
  assertBounded(json.stderr, "chat parse --json: stderr");
  const doc = JSON.parse(json.stdout);
  assert.equal(doc.status, "error");
  assertBounded(doc.error, "chat parse --json: the document");
});

Deno.test("an error line of a path's length is printed whole (R164-4)", async () => {
  await using t = await tempDir();
  const name = "d".repeat(250);
  const long = Array.from({ length: 16 }, () => name).join("/"); // about 4 KB, as PATH_MAX
  const r = await runMain(["chat", "parse", long], { env: { SCOUT_HOME: t.path }, cwd: t.path });
  assert.equal(r.code, 1);
  assert.ok(r.stderr.includes(long), r.stderr.slice(0, 200));
  assert.doesNotMatch(r.stderr, /characters cut/);
});
