/**
 * Ctrl-C while `llm ask -o` / `agent ask -o` saves a complete answer
 * (R141-1): the save of a large chat takes seconds (its parse, then the
 * write). A first SIGINT lets it finish, says so on stderr and exits 130
 * (before: ignored, exit 0); a later one saves the chat with its answer at
 * once (before: the question only, written over the answer's save) and
 * leaves no temp file (before: the in-flight write's, as large as the chat).
 * Real processes, real signals; the save is held at the chat's persist lock,
 * which the test holds as another process would, then let go.
 */
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { spawnScout, tempDir } from "../support/cli.ts";
import { type ProviderServer, startProviderServer } from "../support/provider_server.ts";
import { lockPathFor } from "../../src/workflow/store.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const HEAD = "user:\n\nhello\n\nassistant:\n\n";
/** The turn appended: the question, the call's meta line, the complete answer. */
const ANSWERED = /^\n\nuser:\n\nq-mid2\n\nmeta: [^\n]*\n\nassistant:\n\nShort answer\.\n$/;

/** A chat of about `mb` MB of text lines after one answer (an append parses it: 30-120 ms/MB). */
function bigChat(path: string, mb: number): number {
  const line = "some text of a line that goes on for a while, plain words 0123456789\n";
  const text = HEAD + line.repeat(Math.ceil(mb * 1e6 / line.length));
  writeFileSync(path, text);
  return text.length;
}

/** The ask's command line: `llm ask`, or `agent ask Slow` (its endpoint file in the home). */
function askArgs(srv: ProviderServer, home: string, agent: boolean): string[] {
  if (!agent) {
    const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--no-cache"];
    return ["llm", "ask", ...flags, "-o", "mid.chat", "q-mid2"];
  }
  mkdirSync(join(home, "etc/AI"), { recursive: true });
  writeFileSync(join(home, "etc/AI/ep.yaml"), `backend: openai\nurl: ${srv.url}\nmodel: m\n`);
  mkdirSync(join(home, "Agent/Slow"), { recursive: true });
  writeFileSync(join(home, "Agent/Slow/start_chat"), "system: You are slow\n\nendpoint: ep\n");
  return ["agent", "ask", "Slow", "--no-cache", "-o", "mid.chat", "q-mid2"];
}

/** Starts the ask in `dir` (its SCOUT_HOME too). */
function startAsk(dir: string, args: string[]) {
  const child = spawnScout(args, {
    cwd: dir,
    env: { SCOUT_HOME: dir, HOME: dir, OPENAI_API_KEY: "sk-x" },
  });
  return { child };
}

/** Waits (30 s at most) until `ready`. */
async function until(ready: () => boolean, what: string): Promise<void> {
  const t0 = Date.now();
  while (!ready()) {
    if (Date.now() - t0 > 30_000) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

async function ended(child: Deno.ChildProcess) {
  const out = await child.output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

/** The temp-like files left in `dir` (an atomic write's `.<name>.<pid>@<host>.<hex>.tmp`). */
function temps(dir: string): string[] {
  return readdirSync(dir).filter((n) => n.endsWith(".tmp"));
}

/** The chat kept its old text (`old` characters) and got the question and the complete answer, once. */
function assertAnswered(path: string, old: number): void {
  const saved = readFileSync(path, "utf8");
  assert.ok(saved.startsWith(HEAD), "the old text kept");
  const added = saved.slice(old - 1); // from the old text's last line end
  assert.match(added, ANSWERED, `the answer saved: ${JSON.stringify(added.slice(0, 300))}`);
}

/**
 * Starts the ask with the chat's persist lock held by another live process
 * (this test), and waits until the answer is in: its save then waits for the
 * lock. `release` lets go of it.
 */
async function askWaitingForLock(dir: string, srv: ProviderServer, agent: boolean) {
  const args = askArgs(srv, dir, agent);
  const lock = lockPathFor(join(dir, "mid.chat"), join(dir, "tmp", "persist_locks"));
  mkdirSync(join(dir, "tmp", "persist_locks"), { recursive: true });
  writeFileSync(lock, `host: ${hostname()}\npid: ${Deno.pid}\nppid: 1\ntime: now\n`);
  const { child } = startAsk(dir, args);
  await until(() => srv.requests[0]?.firstByteAt !== undefined, "the answer");
  await sleep(1_000); // the answer is in: its save waits for the lock
  return { child, lock, release: () => unlinkSync(lock) };
}

for (const agent of [false, true]) {
  const cmd = agent ? "agent ask" : "llm ask";

  Deno.test(`${cmd} -o: one SIGINT during the answer's save lets it finish, says so, exits 130 (R141-1)`, async () => {
    await using t = await tempDir();
    await using srv = await startProviderServer({ fallback: () => ({ text: "Short answer." }) });
    writeFileSync(join(t.path, "mid.chat"), HEAD + "old\n");
    const { child, release } = await askWaitingForLock(t.path, srv, agent);
    child.kill("SIGINT");
    await sleep(300);
    release();
    const r = await ended(child);
    assert.equal(r.code, 130, r.stderr);
    assert.match(
      r.stderr,
      /^scout-ai: Interrupted: the answer is complete; saving the chat to "mid\.chat" before exiting$/m,
    );
    assert.equal(r.stderr.match(/Interrupted/g)?.length, 1, `said once: ${r.stderr}`);
    assertAnswered(join(t.path, "mid.chat"), (HEAD + "old\n").length);
    assert.deepEqual(temps(t.path), []);
  });

  Deno.test(`${cmd} -o: a later SIGINT while a large chat is saved with the answer writes it so, no temp left (R141-1)`, async () => {
    await using t = await tempDir();
    await using srv = await startProviderServer({ fallback: () => ({ text: "Short answer." }) });
    // 1.2-5 s of parse here before the write: the second signal comes during it and is taken
    // once the write began (JavaScript runs no listener during the parse) — or, on a slow
    // machine, before the save took the lock: then the turn is appended (the same end)
    const length = bigChat(join(t.path, "mid.chat"), 40);
    const { child, lock, release } = await askWaitingForLock(t.path, srv, agent);
    child.kill("SIGINT");
    await sleep(700); // past the grace window (0.5 s)
    release();
    await until(() => existsSync(lock), "the save to take the lock"); // then read, parse, write
    // at once: a fast machine reads, parses and writes the 40 MB in well under 0.5 s; the
    // signal, taken before the parse or once the write began, ends the same way
    child.kill("SIGINT");
    const r = await ended(child);
    assert.equal(r.code, 130, r.stderr);
    assertAnswered(join(t.path, "mid.chat"), length);
    assert.deepEqual(temps(t.path), []);
    assert.match(
      r.stderr,
      /^scout-ai: Interrupted: the chat with its answer was saved to "mid\.chat"$/m,
    );
  });
}

Deno.test("llm ask -o: a later SIGINT while the answer's save waits for another's lock appends the answer, not the question alone (R141-1)", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "Short answer." }) });
  writeFileSync(join(t.path, "mid.chat"), HEAD + "old\n");
  const { child, release } = await askWaitingForLock(t.path, srv, false);
  child.kill("SIGINT");
  await sleep(700);
  release(); // let go, and insist at once
  child.kill("SIGINT");
  const r = await ended(child);
  assert.equal(r.code, 130, r.stderr);
  assertAnswered(join(t.path, "mid.chat"), (HEAD + "old\n").length);
  assert.deepEqual(temps(t.path), []);
  assert.match(r.stderr, /^scout-ai: Interrupted: the chat with its answer was saved/m);
});
