/**
 * The offline-miss index (`<cache>/.index/<x>.keys`) is made with the
 * process's umask, as every other file of the cache: Deno's `appendFileSync`
 * sets a file it creates to 0666 whatever the umask (it `chmod`s after the
 * open), which left the index world-writable in a shared `~/.scout` (R124-2).
 * A real `llm ask` under `umask 022` (as a login shell has it) and `umask 002`
 * (a group store, README) against the loopback provider. An index that
 * cannot be written is named in the warning (R139-3).
 */
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { DENO, runScout, SCOUT_SOURCE_ARGS, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

for (const [umask, expected] of [["022", "644"], ["002", "664"]] as const) {
  Deno.test(`the cache index's files follow umask ${umask} (${expected}), as the entries (R124-2)`, async () => {
    await using srv = await startProviderServer({ fallback: () => ({ text: "Baked." }) });
    await using d = await tempDir();
    const home = join(d.path, "home");
    const out = await new Deno.Command("sh", {
      args: [
        "-c",
        `umask ${umask}; exec "$0" "$@"`,
        DENO,
        ...SCOUT_SOURCE_ARGS,
        "llm",
        "ask",
        "-b",
        "openai",
        "-O",
        `url=${srv.url}`,
        "-m",
        "m",
        "How long to bake?",
      ],
      env: { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x", NO_COLOR: "1" },
      cwd: d.path,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const cache = join(home, "var", "cache", "ask");
    const index = join(cache, ".index");
    const keys = readdirSync(index).filter((f) => f.endsWith(".keys"));
    assert.equal(keys.length, 1, String(readdirSync(index)));
    const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);
    const entry = readdirSync(cache).find((f) => f.endsWith(".json"))!;
    assert.equal(mode(join(cache, entry)), expected, "the entry itself");
    assert.equal(mode(join(index, keys[0]!)), expected); // before: 666 under either umask
  });
}

Deno.test("an index file that cannot be written is named in the ask's warning, once (R139-3)", async () => {
  await using srv = await startProviderServer({ fallback: () => ({ text: "Baked." }) });
  await using d = await tempDir();
  const home = join(d.path, "home");
  const index = join(home, "var", "cache", "ask", ".index");
  mkdirSync(index, { recursive: true });
  // every index file a write fails on with an error that names no file (ENOSPC, like EPERM)
  for (const x of "0123456789abcdef") symlinkSync("/dev/full", join(index, `${x}.keys`));
  const out = await runScout([
    "llm",
    "ask",
    "-b",
    "openai",
    "-O",
    `url=${srv.url}`,
    "-m",
    "m",
    "Hi",
  ], {
    env: { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" },
    cwd: d.path,
  });
  const stderr = out.stderr;
  assert.equal(out.code, 0, stderr);
  const told = stderr.split("\n").filter((l) => l.includes("index"));
  assert.equal(told.length, 1, stderr);
  // before: `Cannot index the answer in the cache: ENOSPC: no space left on device, write`
  assert.match(
    told[0]!,
    new RegExp(
      `Cannot write the cache's index "${index}/[0-9a-f]\\.keys": no space left on device$`,
    ),
  );
});
