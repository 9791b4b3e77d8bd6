/**
 * An offline miss's hint reads entries but uses none (R147-3): reading up to
 * `SCAN_LIMIT` entries to say why the miss missed moved their access times
 * to now (`relatime`: a read of a file whose access time is over a day old,
 * or older than its modification, sets it), and `llm cache clean --older`
 * counts the newer of an entry's access and modification times as its "last
 * used" — so a miss kept 2,000 unrelated old entries another month (a dry
 * run went from 5000 of 5000 entries to 3000). The hint now leaves each
 * entry's times as they were.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { INDEX_DIR } from "../../src/llm/cache_index.ts";
import { SCAN_LIMIT } from "../../src/llm/cache_miss_hint.ts";
import { runScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

/** 2023-11-14, whole seconds: well over a day old, so a read under `relatime` moves it. */
const OLD = new Date("2023-11-14T12:00:00Z");
const COPIES = SCAN_LIMIT + 500;

/** A 64-hex name made of `n` (never a recorded entry's). */
const hex = (n: number) => `e${n.toString(16).padStart(63, "0")}`;

Deno.test("an offline miss's hint leaves the entries it read as unused as they were: llm cache clean --older still removes them", async () => {
  await using d = await tempDir();
  const srv = await startProviderServer({ fallback: () => ({ text: "Baked." }) });
  const env = { SCOUT_HOME: join(d.path, "home"), OPENAI_API_KEY: "sk-x" };
  const scout = (...args: string[]) => runScout(args, { env, cwd: d.path });
  const ask = (...args: string[]) =>
    scout("llm", "ask", "-b", "openai", "-O", `url=${srv.url}`, "-m", "m", ...args);
  try {
    const r = await ask("bake");
    assert.equal(r.code, 0, r.stderr);
  } finally {
    await srv.close();
  }
  const cache = join(d.path, "home", "var", "cache", "ask");
  const [name] = readdirSync(cache).filter((n) => n.endsWith(".json"));
  const entry = JSON.parse(readFileSync(join(cache, name!), "utf8"));
  // other conversations' entries, of a cache older than its index: the miss scans them
  rmSync(join(cache, INDEX_DIR), { recursive: true });
  for (let i = 0; i < COPIES; i++) {
    entry.parts.messages = hex(i).slice(0, 16);
    writeFileSync(join(cache, `${hex(i)}.json`), JSON.stringify(entry) + "\n");
  }
  const files = readdirSync(cache).filter((n) => n.endsWith(".json")).map((n) => join(cache, n));
  for (const f of files) Deno.utimeSync(f, OLD, OLD);
  const total = files.length;

  // the precondition: on this file system a plain read moves an old access time
  const canary = join(d.path, "canary");
  writeFileSync(canary, "x");
  Deno.utimeSync(canary, OLD, OLD);
  readFileSync(canary);
  assert.ok(
    statSync(canary).atimeMs > OLD.getTime(),
    `a read under ${d.path} left an old access time (noatime?): this test cannot fail here`,
  );

  const dry = async () => {
    const c = await scout("llm", "cache", "clean", "--older", "30d", "--dry-run");
    assert.equal(c.code, 0, c.stderr);
    return c.stdout.match(/^\d+ of \d+ entries would be removed/m)?.[0];
  };
  const all = `${total} of ${total} entries would be removed`;
  assert.equal(await dry(), all);

  const miss = await ask("never asked", "--offline");
  assert.equal(miss.code, 1);
  assert.ok(
    miss.stderr.includes(
      `none of the ${SCAN_LIMIT.toLocaleString("en-US")} of the cache's ` +
        `${total.toLocaleString("en-US")} entries looked at`,
    ),
    miss.stderr,
  );
  const moved = files.filter((f) => statSync(f).atimeMs !== OLD.getTime());
  assert.deepEqual(moved.length, 0, `access times moved by the miss: ${moved.length}`);
  for (const f of files) assert.equal(statSync(f).mtimeMs, OLD.getTime(), f);
  assert.equal(await dry(), all);
});
