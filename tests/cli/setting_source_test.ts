/**
 * An endpoint not found says where it looked, the near names, and the file
 * that would make one (R128-4). The real CLI, in a subprocess, with a
 * temporary SCOUT_HOME.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runScout, tempDir } from "../support/cli.ts";

/** A home with the endpoint `nano`, its config file holding `config` (a comment first). */
function home(dir: string, name: string, config?: string) {
  const root = join(dir, name);
  const scout = join(root, "scout");
  mkdirSync(join(scout, "etc", "AI"), { recursive: true });
  writeFileSync(join(scout, "etc", "AI", "nano.yaml"), "backend: openai\nmodel: gpt-5-nano\n");
  const file = join(scout, "etc", "config");
  if (config !== undefined) writeFileSync(file, `# mine\n${config}\n`);
  const env = { SCOUT_HOME: scout, HOME: root, OPENAI_API_KEY: "sk-x", NO_COLOR: "1" };
  return { root, scout, file, env };
}

const ask = (h: ReturnType<typeof home>, args: string[], env: Record<string, string> = {}) =>
  runScout(["llm", "ask", ...args], { env: { ...h.env, ...env }, cwd: h.root });

Deno.test("llm ask -e with a misspelt endpoint says where it looked, the near name, and how to make one (R128-4)", async () => {
  await using d = await tempDir();
  const h = home(d.path, "h");
  const r = await ask(h, ["-e", "nnao", "hi"]);
  assert.equal(r.code, 2, r.stderr);
  const dirs = [
    join(h.root, "etc", "AI"),
    join(h.scout, "etc", "AI"),
    "/usr/local/etc/scout/AI",
    "/etc/scout/AI",
  ].join(", ");
  const make = join(h.scout, "etc", "AI", "nnao.yaml");
  assert.equal(
    r.stderr.split("\n")[0],
    `scout-ai: Endpoint not found "nnao"; did you mean "nano"? (searched ${dirs}; make one as ${make})`,
  );
});
