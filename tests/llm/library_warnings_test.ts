/**
 * scout-ai as a library (mod.ts): what the config, chat, agent and kb layers
 * find in a file is told to the caller's `warn` (R105-4) — on `compileText`,
 * `ask`, `loadAgent`, `openKnowledgeBase` — once per sink, so a second caller
 * with its own sink still hears it; a call without `warn` writes it to stderr
 * with the `scout-ai: warning:` prefix, as every library call does. Real files
 * in temp dirs, the loopback provider, a real subprocess for stderr.
 */
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ask, compileText, loadAgent, setWarningSink, withWarningSink } from "../../mod.ts";
import { openKnowledgeBase } from "../../src/kb/mod.ts";
import { DENO, ROOT, runCommand, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

const UNSCOPED_LINE = "config: model unscoped\n\nuser: x";

/** A sink and what it heard. */
function sink(): { heard: string[]; warn: (m: string) => void } {
  const heard: string[] = [];
  return { heard, warn: (m) => heard.push(m) };
}

async function home(root: string, config: string): Promise<Record<string, string>> {
  const h = join(root, "home");
  await mkdir(join(h, "etc"), { recursive: true });
  await writeFile(join(h, "etc", "config"), config);
  return { SCOUT_HOME: h, OPENAI_API_KEY: "k" };
}

Deno.test("compileText's warn hears an unscoped config: line; a second caller's warn hears it too", async () => {
  await using dir = await tempDir();
  const env = await home(dir.path, "");
  const a = sink();
  const b = sink();
  await compileText(UNSCOPED_LINE, { env, cwd: dir.path, warn: a.warn });
  await compileText(UNSCOPED_LINE, { env, cwd: dir.path, warn: a.warn }); // once per sink
  await compileText(UNSCOPED_LINE, { env, cwd: dir.path, warn: b.warn });
  assert.equal(a.heard.length, 1, a.heard.join("\n"));
  assert.match(a.heard[0]!, /"config: model unscoped" has no scope/);
  assert.deepEqual(b.heard, a.heard);
});

Deno.test("ask's warn hears an etc/config entry no lookup reads; so does the next ask's", async () => {
  await using dir = await tempDir();
  const env = await home(dir.path, "model from-config\n");
  const srv = await startProviderServer({ port: 0, fallback: () => ({ text: "pong" }) });
  try {
    const options = { backend: "openai", url: srv.url, persist: false, env, cwd: dir.path };
    const msgs = [{ role: "user", content: "hi" }];
    const a = sink();
    const b = sink();
    assert.equal((await ask(msgs, { ...options, warn: a.warn })).text, "pong");
    assert.equal((await ask(msgs, { ...options, warn: b.warn })).text, "pong");
    const said = (s: { heard: string[] }) =>
      s.heard.filter((m) => m.includes(':1: the entry "model" has no scope')).length;
    assert.equal(said(a), 1, a.heard.join("\n"));
    assert.equal(said(b), 1, b.heard.join("\n"));
  } finally {
    await srv.close();
  }
});

Deno.test("loadAgent: each loader's warn hears the agent's Ruby-only files and start chat", async () => {
  await using dir = await tempDir();
  const env = await home(dir.path, "");
  const agentDir = join(env.SCOUT_HOME!, "var", "Agent", "Rubyish");
  await mkdir(agentDir, { recursive: true });
  await writeFile(join(agentDir, "agent.rb"), "# Ruby\n");
  await writeFile(join(agentDir, "start_chat"), "config: model unscoped\n\nsystem: hi\n");
  const quiet = sink();
  await loadAgent("Rubyish", { env, cwd: dir.path, runtime: { warn: quiet.warn } });
  const a = sink();
  await loadAgent("Rubyish", { env, cwd: dir.path, warn: a.warn });
  for (const s of [quiet, a]) {
    assert.equal(s.heard.length, 2, s.heard.join("\n"));
    assert.ok(s.heard.some((m) => m.includes("Ruby files are not loaded (agent.rb)")));
    assert.ok(s.heard.some((m) => m.includes('"config: model unscoped" has no scope')));
  }
});

Deno.test("a caller's sink wins over the process-wide one; openKnowledgeBase's warn hears the registry", async () => {
  await using dir = await tempDir();
  const kb = join(dir.path, "kb");
  await mkdir(join(kb, "config"), { recursive: true });
  await writeFile(join(kb, "config", "registry"), `---\non:\n- ${join(kb, "on.tsv")}\n`);
  const proc = sink();
  const a = sink();
  const b = sink();
  setWarningSink(proc.warn);
  try {
    openKnowledgeBase(kb, {}, a.warn);
    withWarningSink(b.warn, () => openKnowledgeBase(kb, {}));
  } finally {
    setWarningSink(undefined);
  }
  assert.deepEqual(proc.heard, []);
  assert.equal(a.heard.length, 1, a.heard.join("\n"));
  assert.match(a.heard[0]!, /registry:2: the database name on is unquoted/);
  assert.deepEqual(b.heard, a.heard);
});

Deno.test("without warn: compileText and loadAgent both write to stderr, with the prefix, once", async () => {
  await using dir = await tempDir();
  const env = await home(dir.path, "");
  await mkdir(join(env.SCOUT_HOME!, "var", "Agent", "Rubyish"), { recursive: true });
  await writeFile(join(env.SCOUT_HOME!, "var", "Agent", "Rubyish", "agent.rb"), "# Ruby\n");
  const script = join(dir.path, "lib.ts");
  await writeFile(
    script,
    `import { compileText, loadAgent } from ${JSON.stringify(join(ROOT, "mod.ts"))};\n` +
      `for (let i = 0; i < 2; i++) {\n` +
      `  await compileText(${JSON.stringify(UNSCOPED_LINE)});\n` +
      `  await loadAgent("Rubyish");\n` +
      `}\n`,
  );
  const r = await runCommand(DENO, [
    "run",
    "-q",
    "-A",
    `--config=${join(ROOT, "deno.json")}`,
    script,
  ], {
    env,
    cwd: dir.path,
  });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stderr.split("\n").filter((l) => l !== "");
  assert.equal(lines.length, 2, r.stderr);
  assert.match(lines[0]!, /^scout-ai: warning: <text>:1: "config: model unscoped" has no scope/);
  assert.match(lines[1]!, /^scout-ai: warning: Agent "Rubyish" .*Ruby files are not loaded/);
});
