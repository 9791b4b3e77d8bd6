/**
 * SIGHUP (a closed terminal, a dropped ssh session) ends an ask as SIGTERM
 * does (R91-3): exit 129, the `-o` chat so far saved — also when the
 * output's reader is gone by then (writes fail with EPIPE), as Ruby's
 * SignalException lets its rescue/ensure save. Real processes, real signals.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DENO, SCOUT_SOURCE_ARGS, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { put } from "../support/files.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs the CLI with stdout and stderr into a pipe whose reader leaves after
 * 20 bytes, sends SIGHUP once `ready`, and returns its exit code.
 */
async function hungUp(dir: string, args: string[], ready: () => boolean): Promise<number> {
  const pidFile = join(dir, "pid");
  const rcFile = join(dir, "rc");
  const script = `("$@" </dev/null & echo $! > '${pidFile}'; wait $!; echo $? > '${rcFile}') 2>&1 |
head -c 20 >/dev/null`;
  const sh = new Deno.Command("sh", {
    args: ["-c", script, "sh", DENO, ...SCOUT_SOURCE_ARGS, ...args],
    cwd: dir,
    env: { SCOUT_HOME: join(dir, "home"), OPENAI_API_KEY: "sk-x", NO_COLOR: "1" },
  }).spawn();
  while (!ready() || !existsSync(pidFile)) await sleep(25);
  await sleep(600);
  Deno.kill(Number(readFileSync(pidFile, "utf8")), "SIGHUP");
  await sh.status;
  return Number(readFileSync(rcFile, "utf8"));
}

Deno.test("llm ask: SIGHUP with the output's reader gone exits 129 and saves the -o chat (R91-3)", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({
    fallback: () => ({ text: Array.from({ length: 60 }, (_, i) => `w${i} `), chunkDelayMs: 100 }),
  });
  const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--stream", "--no-cache"];
  const code = await hungUp(
    t.path,
    ["llm", "ask", ...flags, "-o", "c.chat", "Tell a long story"],
    () => srv.requests[0]?.firstByteAt !== undefined,
  );
  assert.equal(code, 129);
  const chat = readFileSync(join(t.path, "c.chat"), "utf8");
  assert.match(chat, /Tell a long story/);
  assert.match(chat, /incomplete=true/);
});

Deno.test("agent ask: SIGHUP exits 129 and keeps the question in -o (R91-3)", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({
    fallback: () => ({ text: "late", delayMs: 5000 }),
  });
  put(t.path, "home/etc/AI/ep.yaml", `backend: openai\nurl: ${srv.url}\nmodel: m\n`);
  put(t.path, "Agent/Slow/start_chat", "system: You are slow\n\nendpoint: ep\n");
  const code = await hungUp(
    t.path,
    ["agent", "ask", "Slow", "--no-cache", "-o", "s.chat", "Tell a long story"],
    () => srv.requests.length > 0,
  );
  assert.equal(code, 129);
  assert.match(readFileSync(join(t.path, "s.chat"), "utf8"), /Tell a long story/);
});
