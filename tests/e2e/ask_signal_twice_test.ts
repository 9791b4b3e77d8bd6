/**
 * A signal that arrives twice must not lose the `-o` chat (R91-1): a
 * terminal's Ctrl-C reaches the whole foreground group and `deno task`
 * passes its copy on, SLURM signals every process of a step; a second
 * signal within the grace window is ignored (the save finishes), a later
 * one saves the question at once and exits. Real processes, real signals.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { DENO, ROOT, SCOUT_SOURCE_ARGS, tempDir } from "../support/cli.ts";
import { type ProviderServer, startProviderServer } from "../support/provider_server.ts";
import { lockPathFor } from "../../src/workflow/store.ts";

const slow = { text: Array.from({ length: 60 }, (_, i) => `w${i} `), chunkDelayMs: 100 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function streaming(srv: ProviderServer): Promise<void> {
  while (!srv.requests[0]?.firstByteAt) await sleep(25);
  await sleep(300);
}

function askArgs(srv: ProviderServer, out: string): string[] {
  const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--stream", "--no-cache"];
  return ["llm", "ask", ...flags, "-o", out, "Tell a long story"];
}

function spawn(cmd: string, args: string[], cwd: string, home: string) {
  return new Deno.Command(cmd, {
    args,
    cwd,
    env: { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x", NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

Deno.test("llm ask: two SIGINTs 10 ms apart exit 130 with the -o chat saved (R91-1)", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({ fallback: () => slow });
  const child = spawn(DENO, [...SCOUT_SOURCE_ARGS, ...askArgs(srv, "s.chat")], t.path, t.path);
  await streaming(srv);
  child.kill("SIGINT");
  await sleep(10);
  child.kill("SIGINT");
  const out = await child.output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 130, stderr);
  const chat = readFileSync(join(t.path, "s.chat"), "utf8");
  assert.match(chat, /Tell a long story/);
  assert.match(chat, /incomplete=true/);
});

Deno.test("deno task scout llm ask in its own group: a group SIGTERM exits 143 with the -o chat saved (R91-1)", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({ fallback: () => slow });
  const out = join(t.path, "dt.chat");
  const args = ["task", "-q", `--config=${join(ROOT, "deno.json")}`, "scout", ...askArgs(srv, out)];
  const child = spawn("setsid", [DENO, ...args], t.path, t.path);
  await streaming(srv);
  // setsid ran in the child's own pid (not a group leader): that pid leads the new group
  const kill = await new Deno.Command("kill", { args: ["-TERM", "--", `-${child.pid}`] }).output();
  assert.ok(kill.success, new TextDecoder().decode(kill.stderr));
  const end = await child.output();
  const stderr = new TextDecoder().decode(end.stderr);
  assert.equal(end.code, 143, stderr);
  const chat = readFileSync(out, "utf8");
  assert.match(chat, /Tell a long story/);
  assert.match(chat, /incomplete=true/);
});

Deno.test("llm ask: a second SIGINT after the grace window, the save still waiting, saves the question and exits 130 (R91-1)", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({ fallback: () => slow });
  // another live process (this test) holds the chat's persist lock: the save waits for it
  const lockDir = join(t.path, "tmp", "persist_locks");
  mkdirSync(lockDir, { recursive: true });
  const lock = lockPathFor(join(t.path, "s.chat"), lockDir);
  writeFileSync(lock, `host: ${hostname()}\npid: ${Deno.pid}\nppid: 1\ntime: now\n`);
  const child = spawn(DENO, [...SCOUT_SOURCE_ARGS, ...askArgs(srv, "s.chat")], t.path, t.path);
  await streaming(srv);
  child.kill("SIGINT");
  await sleep(900);
  assert.equal(existsSync(join(t.path, "s.chat")), false, "the save waits for the lock");
  unlinkSync(lock); // let go, and insist at once
  child.kill("SIGINT");
  const out = await child.output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 130, stderr);
  assert.match(readFileSync(join(t.path, "s.chat"), "utf8"), /Tell a long story/);
});

Deno.test("agent ask: two SIGTERMs 10 ms apart exit 143 with the question in -o (R91-1)", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({
    fallback: () => ({ text: "late", delayMs: 3000 }),
  });
  mkdirSync(join(t.path, "etc/AI"), { recursive: true });
  writeFileSync(join(t.path, "etc/AI/ep.yaml"), `backend: openai\nurl: ${srv.url}\nmodel: m\n`);
  mkdirSync(join(t.path, "Agent/Slow"), { recursive: true });
  writeFileSync(join(t.path, "Agent/Slow/start_chat"), "system: You are slow\n\nendpoint: ep\n");
  const args = ["agent", "ask", "Slow", "--no-cache", "-o", "s.chat", "Tell a long story"];
  const child = spawn(DENO, [...SCOUT_SOURCE_ARGS, ...args], t.path, t.path);
  while (srv.requests.length === 0) await sleep(25);
  await sleep(300);
  child.kill("SIGTERM");
  await sleep(10);
  child.kill("SIGTERM");
  const out = await child.output();
  assert.equal(out.code, 143, new TextDecoder().decode(out.stderr));
  assert.match(readFileSync(join(t.path, "s.chat"), "utf8"), /Tell a long story/);
});
