/**
 * `system clean` on a store a Ruby Scout shares (R124), through the real CLI
 * in a subprocess: a job whose `.info` Scout wrote as a Marshal dump
 * (`SCOUT_SERIALIZER=marshal`, bytes Ruby made: `fixtures/marshal-info/`)
 * is read — its dependencies kept, its status judged — where it stopped
 * every clean of the store; one whose `.info` cannot be read at all keeps
 * the done jobs, with one warning, and lets the failed ones go.
 */
import assert from "node:assert/strict";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runScout, tempDir } from "../support/cli.ts";
import { ageJob, present, putDoneJob, putJob, storeOpts } from "../support/store_ages.ts";
import { lockHolder } from "../support/lock_holder.ts";

const MARSHAL = join(ROOT, "fixtures", "marshal-info");

/**
 * The store of the report: Wf/top/D a Ruby job in progress (on another
 * node) with a Marshal `.info` naming Wf/dep/X and Other/side/Y (paths of
 * another machine: relocated), both done and old; Wf/other/Z done and old;
 * Fail/f/E in error.
 */
function rubyStore(d: string, info: Uint8Array) {
  const top = putJob(d, "Wf/top/D", info, null);
  const failed = putJob(d, "Fail/f/E", JSON.stringify({ status: "error" }), null);
  ageJob(failed, 2);
  return {
    top,
    deps: [putDoneJob(d, "Wf/dep/X", 40), putDoneJob(d, "Other/side/Y", 40)],
    other: putDoneJob(d, "Wf/other/Z", 40),
    failed,
  };
}

async function clean(d: string, args: string[]) {
  const r = await runScout(["system", "clean", ...args, "--json"], storeOpts(d));
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const out = JSON.parse(r.stdout);
  const pairs = (
    xs: { shortPath: string; status?: string; reason?: string }[],
    k: "status" | "reason",
  ) => xs.map((x) => [x.shortPath, x[k]]).sort();
  return {
    removed: pairs(out.removed, "status"),
    kept: pairs(out.kept, "reason"),
    warnings: out.warnings,
  };
}

Deno.test("system clean reads a Ruby Marshal .info: its dependencies stay, the rest goes (R124-1)", async () => {
  await using d = await tempDir();
  const s = rubyStore(d.path, Deno.readFileSync(join(MARSHAL, "running.info")));
  await using run = await lockHolder(s.top, join(d.path, "scout", "tmp", "persist_locks"));
  const out = await clean(d.path, ["all", "--older", "30d"]);
  assert.deepEqual(out.removed, [["Fail/f/E", "error"], ["Wf/other/Z", "done"]]);
  assert.deepEqual(out.kept, [
    ["Other/side/Y", "a dependency of Wf/top/D, which stays"],
    ["Wf/dep/X", "a dependency of Wf/top/D, which stays"],
    ["Wf/top/D", "in progress on ruby-node, which cannot be checked from here"],
  ]);
  assert.deepEqual(out.warnings, []);
  for (const p of [s.top, ...s.deps]) assert.ok(present(p), p);

  // its status read: a Marshal info in error, its run over, goes as one (before, it stopped the clean)
  await run.kill();
  copyFileSync(join(MARSHAL, "error.info"), s.top + ".info");
  ageJob(s.top, 2);
  const err = await clean(d.path, ["Wf"]);
  assert.deepEqual(err.removed, [["Wf/top/D", "error"]]);
});

Deno.test("system clean: a job that stays whose .info cannot be read keeps the done jobs, warns once, the failed go (R124-1)", async () => {
  await using d = await tempDir();
  const cut = Deno.readFileSync(join(MARSHAL, "running.info")).subarray(0, 200); // a truncated dump
  const s = rubyStore(d.path, cut);
  await using _run = await lockHolder(s.top, join(d.path, "scout", "tmp", "persist_locks"));
  ageJob(s.top, 40);
  for (const dry of [["--dry-run"], []]) {
    const out = await clean(d.path, ["all", "--older", "30d", ...dry]);
    assert.deepEqual(out.removed, [["Fail/f/E", "error"]], dry.join());
    const may = "may be a dependency of Wf/top/D, whose .info cannot be read";
    assert.deepEqual(out.kept, [
      ["Other/side/Y", may],
      ["Wf/dep/X", may],
      ["Wf/other/Z", may],
      ["Wf/top/D", "in use: its lock is held"],
    ]);
    assert.equal(out.warnings.length, 1);
    assert.match(
      out.warnings[0],
      /^Cannot tell which jobs Wf\/top\/D depends on: Info file "[^"]+" is a Ruby Marshal dump that cannot be read: .*ends too early.*; it stays \(in use: its lock is held\), and so do the 3 done jobs that would have gone: /,
    );
    assert.doesNotMatch(
      out.warnings[0],
      /remove it|by hand/i,
      "no job in use is to be removed by hand",
    );
  }
  for (const p of [s.top, s.other, ...s.deps]) assert.ok(present(p), p);
  assert.equal(present(s.failed), false);
  const text = await runScout(["system", "clean", "all", "--older", "30d"], storeOpts(d.path));
  assert.equal(text.code, 0, text.stderr);
  assert.equal(
    text.stderr.match(/^scout-ai: warning: Cannot tell which jobs Wf\/top\/D/gm)?.length,
    1,
  );
});

Deno.test("system clean: a Marshal .info nested 200,000 deep is an unreadable info, not a stopped clean (R129-1)", async () => {
  await using d = await tempDir();
  const deep = new Uint8Array(2 + 2 * 200_000 + 1);
  deep.set([4, 8]);
  for (let i = 2; i < deep.length - 1; i += 2) deep.set([0x5b, 0x06], i); // `[` of one item
  deep[deep.length - 1] = 0x30; // nil
  putJob(d.path, "Wf/t/Deep", deep, null);
  const failed = putJob(d.path, "Wf/t/Failed", JSON.stringify({ status: "error" }), null);
  ageJob(failed, 2);
  const r = await runScout(["system", "clean", "Wf", "--json"], storeOpts(d.path));
  assert.equal(r.code, 0, r.stdout + r.stderr); // before: "Maximum call stack size exceeded", exit 1
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out.removed.map((x: { shortPath: string }) => x.shortPath), ["Wf/t/Failed"]);
  assert.equal(present(failed), false);
});
