/**
 * The README's virtual-memory advice (R166-3): the binary under the
 * `ulimit -v` value the README recommends runs `llm ask`, an `agent ask` of
 * a workflow-backed agent (the Critic: its inference runs as a job), a Boss
 * asking eight specialists at once, and `workflow task`. The value is read
 * from the README, so the advice and this check cannot drift apart: at the
 * 1,400,000 KB the README gave before, `agent ask` failed every time
 * (`Failed to start HTTP Client thread: EAGAIN`).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BINARY, buildBinary, ROOT, runCommand, tempDir } from "../support/cli.ts";
import { bossSociety } from "../support/boss_society.ts";

/** The `ulimit -v` value the README recommends (KB). */
function recommendedLimit(): number {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const m = /Set `ulimit -v (\d+)` \(KB\)/.exec(readme);
  assert.ok(m, "README recommends a `ulimit -v` value");
  return Number(m[1]);
}

Deno.test("binary: the README's ulimit -v runs llm ask, agent ask (a job), eight specialists, workflow task", async () => {
  await buildBinary();
  const limit = recommendedLimit();
  await using t = await tempDir();
  await using _srv = await bossSociety(t.path, "an answer");
  const critic = join(ROOT, "fixtures", "agents", "Agent", "Critic");
  const runs: [string, string[], string][] = [
    ["llm ask", ["llm", "ask", "-e", "ep", "q"], "an answer\n"],
    ["agent ask Critic", ["agent", "ask", critic, "-e", "ep", "q"], "an answer\n"],
    ["agent ask Boss", ["agent", "ask", "Boss", "--no-cache", "go"], "boss final\n"],
    ["workflow task", ["workflow", "task", join(ROOT, "fixtures/workflows/Baking"), "cake"], ""],
  ];
  for (const [what, args, out] of runs) {
    const r = await runCommand("bash", [
      "-c",
      `ulimit -v ${limit} && exec "$@"`,
      "-",
      BINARY,
      ...args,
    ], {
      cwd: t.path,
      env: { SCOUT_HOME: join(t.path, "home"), OPENAI_API_KEY: "sk-x", ASK_AGENTS: "8" },
    });
    assert.equal(r.code, 0, `${what} under ulimit -v ${limit}: ${r.stderr}`);
    if (out !== "") assert.equal(r.stdout, out, what);
  }
});
