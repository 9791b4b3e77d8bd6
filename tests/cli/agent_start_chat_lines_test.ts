/**
 * Errors about a `tool:`, `introduce:` or `endpoint:` line name the file and
 * line it was written on (defect R41-2): a line of an agent's `start_chat`
 * names `Agent/<Name>/start_chat:<line>` on `agent ask`, and a line of the
 * user's own `-c` chat names that chat — on `agent ask` and on `llm ask`.
 * The lines resolve at ask time, long after the start chat was compiled.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { clearAgentCache } from "../../src/agent/load.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { socialTaskWorkflowText } from "../agent/delegation_support.ts";
import { put } from "../support/files.ts";

/** Each bad line, the message it gives, and whether the ask needs `-e ep` to get that far. */
const BAD = [
  { line: "tool: NoSuchWorkflow", message: /Workflow not found NoSuchWorkflow/, e: true },
  { line: "introduce: NoSuchWorkflow", message: /Workflow not found NoSuchWorkflow/, e: true },
  { line: "endpoint: missing", message: /Endpoint not found "missing"/, e: false },
];

function fixture(path: string, url: string) {
  const home = join(path, "home");
  put(home, "etc/AI/ep.yaml", `backend: openai\nurl: ${url}\nmodel: m\n`);
  clearAgentCache();
  const env = { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" };
  return (...args: string[]) => runMain([...args, "--no-cache"], { env, cwd: path });
}

Deno.test("agent ask: a bad tool:/introduce:/endpoint: line of the start chat names Agent/<Name>/start_chat:<line>", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "asked" }) });
  const run = fixture(t.path, srv.url);
  for (const bad of BAD) {
    put(t.path, "Agent/Foo/start_chat", `system: You help\n\n${bad.line}\n`);
    clearAgentCache();
    const r = await run("agent", "ask", "Foo", ...(bad.e ? ["-e", "ep"] : []), "question");
    assert.equal(r.code, 1, `${bad.line}: ${r.stderr}`);
    assert.match(r.stderr, bad.message);
    assert.match(r.stderr, /Agent\/Foo\/start_chat:3\)\n$/, `${bad.line}: ${r.stderr}`);
  }
  assert.equal(srv.requests.length, 0);
});

Deno.test("agent ask -c / llm ask -c: a bad line of the user's own chat names that chat and line, not the start chat", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "asked" }) });
  const run = fixture(t.path, srv.url);
  put(t.path, "Agent/Foo/start_chat", "system: You help\n\nuser: a first line\n");
  for (const bad of BAD) {
    put(t.path, "u.chat", `user: hello\n\n${bad.line}\n`);
    const e = bad.e ? ["-e", "ep"] : [];
    for (const cmd of [["agent", "ask", "Foo"], ["llm", "ask"]]) {
      const r = await run(...cmd, "-c", "u.chat", ...e, "question");
      assert.equal(r.code, 1, `${cmd.join(" ")} ${bad.line}: ${r.stderr}`);
      assert.match(r.stderr, bad.message);
      assert.match(r.stderr, / \(u\.chat:3\)\n$/, `${cmd.join(" ")} ${bad.line}: ${r.stderr}`);
    }
  }
  assert.equal(srv.requests.length, 0);
});

/** Agent `name` under `dir` on the task route (its workflow's `ask` is a chat task). */
function taskRouteAgent(dir: string, name: string, startChat: string): void {
  const here = join(dir, "Agent", name);
  put(here, "start_chat", startChat);
  put(here, "workflow.ts", socialTaskWorkflowText(name, here));
  clearAgentCache();
}

Deno.test("agent ask on the task route: the failed job's error names the start chat's tool:/introduce: line, and the -c chat's endpoint: line", async () => {
  await using t = await tempDir();
  const home = join(t.path, "home");
  const env = { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" };
  const route = (name: string, startChat: string) => taskRouteAgent(t.path, name, startChat);
  for (const [i, bad] of ["tool: NoSuchWorkflow", "introduce: NoSuchWorkflow"].entries()) {
    route(`Lines${i}`, `system: You help\n\n${bad}\n`);
    const r = await runMain(["agent", "ask", `Lines${i}`, "question"], { env, cwd: t.path });
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`Agent/Lines${i}/start_chat:3\\)`), r.stderr);
    assert.match(r.stderr, /failed: Workflow not found NoSuchWorkflow/);
  }
  route("LinesE", "system: You help\n");
  put(t.path, "u.chat", "user: hello\n\nendpoint: missing\n");
  const r = await runMain(["agent", "ask", "LinesE", "-c", "u.chat", "question"], {
    env,
    cwd: t.path,
  });
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /Endpoint not found "missing" \(searched [^\n]*\) \(u\.chat:3\)/,
    r.stderr,
  );
});

Deno.test("agent ask on the task route: the -c chat's tool:/introduce: line, and the start chat's endpoint: line, name theirs too", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "asked" }) });
  const home = join(t.path, "home");
  put(home, "etc/AI/ep.yaml", `backend: openai\nurl: ${srv.url}\nmodel: m\n`);
  const env = { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" };
  const route = (name: string, startChat: string) => taskRouteAgent(t.path, name, startChat);
  const ask = (...args: string[]) => runMain(["agent", "ask", ...args], { env, cwd: t.path });
  route("LinesC", "system: You help\n\nendpoint: ep\n");
  for (const bad of ["tool: NoSuchWorkflow", "introduce: NoSuchWorkflow"]) {
    put(t.path, "u.chat", `user: hello\n\n${bad}\n`);
    const r = await ask("LinesC", "-c", "u.chat", "question");
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /failed: Workflow not found NoSuchWorkflow \(u\.chat:3\)/, r.stderr);
  }
  route("LinesS", "system: You help\n\nendpoint: missing\n");
  const r = await ask("LinesS", "question");
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /Endpoint not found "missing" \(searched [^\n]*\) \(.*Agent\/LinesS\/start_chat:3\)/,
    r.stderr,
  );
  // a value given as a flag (-e) has no line: a usage error, before the job starts (R110-1)
  const flag = await ask("LinesC", "-e", "missing2", "question");
  assert.equal(flag.code, 2);
  assert.match(
    flag.stderr,
    /^scout-ai: Endpoint not found "missing2" \(searched [^\n]*\)\n\(run with --help for usage\)\n$/,
  );
  assert.equal(srv.requests.length, 0);
});
