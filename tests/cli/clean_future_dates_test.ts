/**
 * A job or cache entry dated in the future (R163-2): a date further ahead
 * than the clock skew hosts may have (10 minutes, `util/lock_watch.ts`) is
 * no clock's, so its age counts from the file's last change (ctime), and
 * while that keeps it, it is listed as kept with why; before, it looked
 * used a moment ago until that date and stayed silently. A date ahead within
 * the skew still counts (the grace minute holds), one behind is as ever.
 * With another clock (the age not yet run out, or unknown):
 * tests/workflow/store_clean_future_test.ts, tests/llm/cache_clean_future_test.ts.
 */
import assert from "node:assert/strict";
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { present, putJob, storeOpts } from "../support/store_ages.ts";

const MIN = 60_000;
const FUTURE = new Date("2027-06-01T00:00:00Z");
const REASON =
  /^dated in the future \(2027-06-01T00:00:00\.000Z, more than 10m ahead of this host's clock\): its age counts from its last change, \d+s ago$/;

/** An error job (an `.info`, no result) dated at `t`. */
function errorJob(dir: string, short: string, t: Date): string {
  const path = putJob(dir, short, JSON.stringify({ status: "error" }), null);
  Deno.utimeSync(path + ".info", t, t);
  return path;
}

Deno.test("system clean: an error job dated beyond the skew ahead is listed as kept, with why; within the skew the grace minute holds", async () => {
  await using d = await tempDir();
  const ahead = errorJob(d.path, "Baking/broken/Ahead", FUTURE);
  const near = errorJob(d.path, "Baking/broken/Near", new Date(Date.now() + 5 * MIN));
  const past = errorJob(d.path, "Baking/broken/Past", new Date(Date.now() - 5 * MIN));
  const args = ["system", "clean", "Baking", "--older", "0", "--dry-run"];
  const text = await runMain(args, storeOpts(d.path));
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^1 job would be removed \(18 B\), 1 kept$/m);
  const kept = text.stderr.split("\n").filter((l) => l.startsWith("kept "));
  assert.equal(kept.length, 1, text.stderr);
  assert.ok(kept[0]!.startsWith(`kept ${ahead} (error): `), kept[0]);
  assert.match(kept[0]!.slice(`kept ${ahead} (error): `.length), REASON);

  const json = await runMain([...args, "--json"], storeOpts(d.path));
  const out = JSON.parse(json.stdout);
  assert.deepEqual(out.removed.map((r: { path: string }) => r.path), [past]);
  assert.deepEqual(
    out.kept.map((k: { path: string; status: string }) => [k.path, k.status]),
    [[ahead, "error"]],
    "the one 5 minutes ahead stays in its grace minute, as before, nothing to say",
  );
  assert.match(out.kept[0].reason, REASON);
  for (const p of [ahead, near, past]) assert.ok(present(p), "a dry run removes nothing");
});

Deno.test("system clean: a done job dated beyond the skew ahead is aged from its last change, not kept until that date", async () => {
  await using d = await tempDir();
  const done = putJob(d.path, "Baking/cake/Ahead", JSON.stringify({ status: "done" }), "cake\n");
  for (const f of [done, done + ".info"]) Deno.utimeSync(f, FUTURE, FUTURE);
  const r = await runMain(
    ["system", "clean", "Baking", "--older", "30d", "--json"],
    storeOpts(d.path),
  );
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out.removed, []);
  assert.equal(out.kept.length, 1);
  assert.equal(out.kept[0].status, "done");
  assert.match(out.kept[0].reason, REASON);
  assert.ok(present(done));
});

/** A cache directory under a fresh home, and `llm cache clean` in it. */
function cacheHome(root: string) {
  const env = { SCOUT_HOME: join(root, "home"), HOME: root, NO_COLOR: "1" };
  const dir = join(env.SCOUT_HOME, "var", "cache", "ask");
  mkdirSync(dir, { recursive: true });
  const entry = (key: string, t: Date) => {
    const file = join(dir, `${key}.json`);
    writeFileSync(file, "{}\n");
    Deno.utimeSync(file, t, t);
    return file;
  };
  const clean = (...args: string[]) =>
    runMain(["llm", "cache", "clean", ...args], { env, cwd: root });
  return { env, dir, entry, clean };
}

Deno.test("llm cache clean: an entry dated beyond the skew ahead is listed as kept, with why, and goes with --older 0", async () => {
  await using d = await tempDir();
  const h = cacheHome(d.path);
  const ahead = h.entry("a1", FUTURE);
  const near = h.entry("b2", new Date(Date.now() + 5 * MIN));
  const old = h.entry("c3", new Date(Date.now() - 2 * 3_600_000));
  const text = await h.clean("--older", "1h", "--dry-run");
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^1 of 3 entries would be removed \(3 B\); 1 kept; /m);
  assert.ok(text.stderr.startsWith(`kept ${ahead}: `), text.stderr);
  assert.match(text.stderr.slice(`kept ${ahead}: `.length).split("\n")[0]!, REASON);

  const json = JSON.parse((await h.clean("--older", "1h", "--dry-run", "--json")).stdout);
  assert.deepEqual(json.removed.map((e: { file: string }) => e.file), [old]);
  assert.equal(json.kept.length, 1);
  assert.equal(json.kept[0].file, ahead);
  assert.match(json.kept[0].reason, REASON);

  // --older 0: all but the one ahead within the skew (as one used a moment ago)
  const all = JSON.parse((await h.clean("--older", "0", "--dry-run", "--json")).stdout);
  assert.deepEqual(all.removed.map((e: { file: string }) => e.file).sort(), [ahead, old]);
  assert.deepEqual(all.kept, []);
  assert.ok(statSync(near).isFile());
});

Deno.test("llm ask: a hit on an entry dated beyond the skew ahead dates it now (R163-2)", async () => {
  await using d = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "Recorded." }) });
  const h = cacheHome(d.path);
  const env = { ...h.env, OPENAI_API_KEY: "sk-test" };
  const ask = (...more: string[]) =>
    runMain(
      ["llm", "ask", "-b", "openai", "-O", `url=${srv.url}`, "-m", "test-model", ...more, "Hi?"],
      { env, cwd: d.path },
    );
  assert.equal((await ask()).code, 0);
  const [name] = Array.from(Deno.readDirSync(h.dir), (e) => e.name).filter((n) =>
    n.endsWith(".json")
  );
  const file = join(h.dir, name!);
  Deno.utimeSync(file, FUTURE, FUTURE);
  const hit = await ask("--offline");
  assert.equal(hit.code, 0, hit.stderr);
  const st = statSync(file);
  for (const t of [st.atimeMs, st.mtimeMs]) assert.ok(Math.abs(Date.now() - t) < MIN, String(t));
});
