/**
 * A signal during an ask's wait on another process's cache key lock ends the
 * ask at once (R142-1): the first SIGTERM aborted the ask's signal, which
 * the wait never looked at, so it went on for its 10 minutes, and a second
 * signal was needed. Real processes, real signals, a live holder (this test).
 */
import assert from "node:assert/strict";
import { readdirSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { DENO, SCOUT_SOURCE_ARGS, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

const env = (home: string) => ({ SCOUT_HOME: home, OPENAI_API_KEY: "sk-x", NO_COLOR: "1" });

function spawnAsk(url: string, home: string) {
  return new Deno.Command(DENO, {
    args: [...SCOUT_SOURCE_ARGS, "llm", "ask", "-b", "openai", "-O", `url=${url}`, "-m", "m", "Hi"],
    cwd: home,
    env: env(home),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Reads `child`'s stderr until it says `text`; what it said. */
async function stderrUntil(stream: ReadableStream<Uint8Array>, text: string): Promise<string> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!seen.includes(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += value;
  }
  reader.releaseLock();
  return seen;
}

/** The child's exit code, or null when it is still running after `ms` (then killed). */
async function exitWithin(child: Deno.ChildProcess, ms: number): Promise<number | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((r) => timer = setTimeout(() => r(null), ms));
  const code = await Promise.race([child.status.then((s) => s.code), late]);
  clearTimeout(timer);
  if (code === null) {
    child.kill("SIGKILL");
    await child.status;
  }
  return code;
}

for (const [signal, code] of [["SIGTERM", 143], ["SIGINT", 130]] as const) {
  Deno.test(`llm ask waiting on a live holder's cache lock: one ${signal} exits ${code} at once (R142-1)`, async () => {
    await using t = await tempDir();
    await using srv = await startProviderServer({ fallback: () => ({ text: "hello" }) });
    const first = await spawnAsk(srv.url, t.path).output();
    assert.equal(first.code, 0, new TextDecoder().decode(first.stderr));
    const cache = join(t.path, "var", "cache", "ask");
    const entry = readdirSync(cache).find((n) => /^[0-9a-f]+\.json$/.test(n))!;
    unlinkSync(join(cache, entry));
    // held by a live process of this host (this test): waited on
    writeFileSync(join(cache, entry.replace(/\.json$/, ".lock")), `${Deno.pid}@${hostname()}`);
    const child = spawnAsk(srv.url, t.path);
    const said = await stderrUntil(child.stderr, "Waiting for another process's identical");
    assert.match(said, /Waiting for another process's identical inference/);
    child.kill(signal);
    // before: still waiting 5 s later (it would have waited 10 minutes)
    assert.equal(await exitWithin(child, 5_000), code, said);
    await child.stdout.cancel();
    assert.equal(srv.requests.length, 1, "the waiting ask sent nothing");
  });
}
