/**
 * `scout-ai llm cache clean` (R120-1: a shared cache of 100k entries had no
 * way to be pruned but `rm`): a dry run lists and removes nothing; `--older`
 * removes entries unused for that long; dead processes' locks, holder files
 * and temp files go, a live one's stay; an entry whose key lock a live ask
 * in another process holds is never removed, and that ask finishes; a hit
 * keeps its entry's "last used" on a `noatime` file system; a bad age is a
 * usage error.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { DENO, ROOT, runMain, runScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { noatimeDir } from "../support/noatime_mount.ts";

const DAY = 86_400_000;

/** The entry files of a cache directory. */
const entries = (dir: string) => readdirSync(dir).filter((n) => n.endsWith(".json")).sort();

/** Dates a file `days` back (access and modification). */
function age(file: string, days: number): void {
  const t = new Date(Date.now() - days * DAY);
  Deno.utimeSync(file, t, t);
}

/** A home with a loopback provider: `ask(q)` records an answer, returning its entry file. */
async function cacheHome(root: string) {
  const srv = await startProviderServer({ fallback: () => ({ text: "Recorded." }) });
  const env = { SCOUT_HOME: join(root, "home"), OPENAI_API_KEY: "sk-test", NO_COLOR: "1" };
  const dir = join(env.SCOUT_HOME, "var", "cache", "ask");
  const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "test-model"];
  const ask = async (q: string, more: string[] = []) => {
    const before = existsSync(dir) ? entries(dir) : [];
    const r = await runMain(["llm", "ask", ...flags, ...more, q], { env, cwd: root });
    assert.equal(r.code, 0, r.stderr);
    const added = entries(dir).filter((n) => !before.includes(n));
    return added.length === 1 ? join(dir, added[0]!) : "";
  };
  const clean = async (...args: string[]) => {
    const r = await runMain(["llm", "cache", "clean", ...args], { env, cwd: root });
    return { ...r, json: args.includes("--json") && r.code === 0 ? JSON.parse(r.stdout) : null };
  };
  return { srv, env, dir, flags, ask, clean, [Symbol.asyncDispose]: () => srv.close() };
}

Deno.test("llm cache clean: a dry run lists and removes nothing; --older removes old entries and dead leftovers", async () => {
  await using d = await tempDir();
  await using h = await cacheHome(d.path);
  const old = await h.ask("old question?");
  const young = await h.ask("young question?");
  age(old, 100);
  const me = `${hostname()}`;
  const deadHolder = join(h.dir, ".holders", `${2 ** 22 + 3}@${me}`);
  writeFileSync(deadHolder, `${2 ** 22 + 3}@${me}`);
  const deadTemp = join(h.dir, `${"a".repeat(64)}.json.tmp-${2 ** 22 + 3}@${me}-1`);
  writeFileSync(deadTemp, "");
  const staleLock = join(h.dir, `${"b".repeat(64)}.lock`);
  writeFileSync(staleLock, `${2 ** 22 + 5}@${me}`);
  const liveHolder = join(h.dir, ".holders", `${Deno.pid}@${me}`);
  writeFileSync(liveHolder, `${Deno.pid}@${me}`);

  const dry = await h.clean("--older", "30d", "--dry-run");
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(
    dry.stdout,
    new RegExp(`^would remove ${old} \\(last used 100d ago, \\d+(\\.\\d)? (B|KiB)\\)$`, "m"),
  );
  assert.match(
    dry.stdout,
    /^1 of 2 entries would be removed .*; 1 stale lock, 1 dead holder, 1 temp file would be removed$/m,
  );
  for (const f of [old, young, deadHolder, deadTemp, staleLock, liveHolder]) {
    assert.ok(existsSync(f), f);
  }

  const run = await h.clean("--older", "30d", "--json");
  assert.equal(run.code, 0, run.stderr);
  const out = run.json;
  assert.equal(out.version, 1);
  assert.equal(out.entries, 2);
  assert.deepEqual(out.removed.map((e: { file: string }) => e.file), [old]);
  assert.equal(out.bytes, out.removed[0].bytes);
  assert.deepEqual([out.locks, out.holders, out.temps], [[staleLock], [deadHolder], [deadTemp]]);
  for (const f of [old, deadHolder, deadTemp, staleLock]) assert.equal(existsSync(f), false, f);
  for (const f of [young, liveHolder]) assert.ok(existsSync(f), f);
  Deno.removeSync(liveHolder);

  // without --older: only leftovers; the entries stay
  age(young, 100);
  const none = await h.clean();
  assert.equal(none.code, 0, none.stderr);
  assert.ok(existsSync(young));
  assert.match(none.stdout, /^1 entry \(none removed without --older\); 0 stale locks/);
});

Deno.test("llm cache clean: an entry whose key lock a live ask in another process holds stays; the ask finishes", async () => {
  await using d = await tempDir();
  await using h = await cacheHome(d.path);
  const busy = await h.ask("busy question?");
  const other = await h.ask("other question?");
  writeFileSync(busy, "{not json"); // a corrupt entry: the next ask of it asks again, under the lock
  age(busy, 100);
  age(other, 100);
  let release!: () => void;
  h.srv.script({ text: "Fresh.", until: new Promise<void>((r) => release = r) });
  const asking = runScout(["llm", "ask", ...h.flags, "busy question?"], {
    env: h.env,
    cwd: d.path,
  });
  const lock = busy.replace(/\.json$/, ".lock");
  const since = Date.now();
  while (h.srv.requests.length < 3) {
    assert.ok(Date.now() - since < 30_000, "the ask sends its request");
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.ok(existsSync(lock), "the ask holds the key's lock while its request is out");
  age(busy, 100); // its reads (before and under the lock) moved its access time
  const r = await h.clean("--older", "30d", "--json");
  release();
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.json.removed.map((e: { file: string }) => e.file), [other]);
  assert.deepEqual(r.json.kept, [{ file: busy, reason: "in use: its key's lock is held" }]);
  assert.deepEqual(r.json.locks, [], "a live ask's lock is not stale");
  const done = await asking;
  assert.equal(done.code, 0, done.stderr);
  assert.equal(done.stdout, "Fresh.\n");
  assert.deepEqual(JSON.parse(Deno.readTextFileSync(busy)).items, [{
    type: "text",
    text: "Fresh.",
  }]);
});

Deno.test("llm cache clean: a key lock whose holder was killed goes, with its entry and holder file", async () => {
  await using d = await tempDir();
  await using h = await cacheHome(d.path);
  const entry = await h.ask("held question?");
  age(entry, 100);
  const key = entry.slice(entry.lastIndexOf("/") + 1, -".json".length);
  const code = `
    import { withKeyLock } from ${JSON.stringify(join(ROOT, "src/llm/cache_lock.ts"))};
    await withKeyLock(${JSON.stringify(h.dir)}, ${JSON.stringify(key)}, () => {
      console.log("held");
      return new Promise(() => {});
    });`;
  const child = new Deno.Command(DENO, { args: ["eval", "-q", code], stdout: "piped" }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  assert.equal((await reader.read()).value?.trim(), "held");
  const held = await h.clean("--older", "30d", "--json");
  assert.deepEqual(held.json.removed, []);
  assert.equal(held.json.kept.length, 1);
  child.kill("SIGKILL");
  await child.status;
  await reader.cancel();
  const after = await h.clean("--older", "30d", "--json");
  assert.equal(after.code, 0, after.stderr);
  assert.deepEqual(after.json.removed.map((e: { file: string }) => e.file), [entry]);
  assert.deepEqual(after.json.locks, [join(h.dir, `${key}.lock`)]);
  assert.deepEqual(after.json.holders, [join(h.dir, ".holders", `${child.pid}@${hostname()}`)]);
  assert.deepEqual(readdirSync(h.dir).filter((n) => !n.startsWith(".")), []);
});

Deno.test("llm cache clean: on a noatime file system a hit keeps its entry in use", async () => {
  await using mount = await noatimeDir();
  await using h = await cacheHome(mount.path);
  const hit = await h.ask("asked again?");
  const unused = await h.ask("asked once?");
  for (const f of [hit, unused]) age(f, 10);
  const stored = statSync(hit).mtimeMs;
  const again = await runMain(["llm", "ask", ...h.flags, "--offline", "asked again?"], {
    env: h.env,
    cwd: mount.path,
  });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stdout, "Recorded.\n");
  const st = statSync(hit);
  assert.ok(Date.now() - st.atimeMs < 60_000, "the hit's access time is now");
  assert.equal(st.mtimeMs, stored, "its modification time (stored) is kept");
  assert.ok(Date.now() - statSync(unused).atimeMs > 9 * DAY, "noatime: reads move no access time");
  const r = await h.clean("--older", "5d", "--json");
  assert.deepEqual(r.json.removed.map((e: { file: string }) => e.file), [unused]);
  assert.ok(existsSync(hit));
});

Deno.test("llm cache clean: a hit within the day keeps its entry from --older 12h; within 10 minutes no time is set (R123-3)", async () => {
  await using mount = await noatimeDir();
  await using h = await cacheHome(mount.path);
  const hit = await h.ask("asked an hour ago?");
  const unused = await h.ask("asked once, long ago?");
  for (const f of [hit, unused]) age(f, 20 / 24);
  const hitAgain = () =>
    runMain(["llm", "ask", ...h.flags, "--offline", "asked an hour ago?"], {
      env: h.env,
      cwd: mount.path,
    });
  const again = await hitAgain();
  assert.equal(again.code, 0, again.stderr);
  assert.ok(
    Date.now() - statSync(hit).atimeMs < 60_000,
    "a hit 20 h after the store sets its time",
  );
  const r = await h.clean("--older", "12h", "--json");
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.json.removed.map((e: { file: string }) => e.file), [unused]);
  assert.ok(existsSync(hit));
  // a hit within 10 minutes of the last one sets nothing: one stat, no utimes
  const fiveMinAgo = new Date(Date.now() - 5 * 60_000);
  Deno.utimeSync(hit, fiveMinAgo, statSync(hit).mtime!);
  assert.equal((await hitAgain()).code, 0);
  assert.equal(statSync(hit).atimeMs, fiveMinAgo.getTime());
});

Deno.test("llm cache clean: a bad age is a usage error", async () => {
  await using d = await tempDir();
  await using h = await cacheHome(d.path);
  // R163-3: a clock too large for an exact age, as a number of days is
  for (const bad of ["30days", "1.5d", "later", "99999999999999999999:0", `${"9".repeat(400)}:0`]) {
    const r = await h.clean("--older", bad);
    assert.equal(r.code, 2, bad);
    assert.match(r.stderr, new RegExp(`^scout-ai: --older: "${bad}" is not an age`));
  }
});
