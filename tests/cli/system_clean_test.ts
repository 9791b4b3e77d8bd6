/**
 * `scout-ai system clean` (R120-1: a shared store had no supported way to
 * prune old jobs): Scout's meaning — jobs that never finish go, with
 * `--older` also done jobs unused for that long — a dry run that removes
 * nothing, `--keep CHAT` keeping what the chat's provenance reaches, a job
 * that stays keeping its dependencies, jobs queued in SLURM or in progress
 * on another host kept, and bad ages as usage errors (exit 2).
 * Concurrent runs: tests/e2e/system_clean_concurrent_test.ts.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { ageJob, bakeStore, jobPath, JOBS, present, storeOpts } from "../support/store_ages.ts";

const HINT = "(run with --help for usage)\n";

/** Files under a directory, relative, sorted. */
function files(dir: string, at = ""): string[] {
  const out: string[] = [];
  for (const e of Deno.readDirSync(join(dir, at))) {
    const rel = at === "" ? e.name : `${at}/${e.name}`;
    out.push(rel);
    if (e.isDirectory) out.push(...files(dir, rel));
  }
  return out.sort();
}

Deno.test("system clean: a dry run lists and removes nothing; the run removes old and failed jobs", async () => {
  await using d = await tempDir();
  await bakeStore(d.path);
  for (const j of [JOBS.cake, JOBS.batter, JOBS.whisk3, JOBS.broken]) {
    ageJob(jobPath(d.path, j), 100);
  }
  const before = files(join(d.path, "scout"));
  const dry = await runMain(
    ["system", "clean", "all", "--older", "30d", "--dry-run"],
    storeOpts(d.path),
  );
  assert.equal(dry.code, 0, dry.stderr);
  for (const j of [JOBS.cake, JOBS.batter, JOBS.whisk3, JOBS.broken]) {
    assert.match(dry.stdout, new RegExp(`^would remove ${jobPath(d.path, j)} \\(`, "m"), j);
  }
  assert.doesNotMatch(dry.stdout, new RegExp(JOBS.whisk5));
  assert.match(dry.stdout, /^4 jobs would be removed \(\d+(\.\d)? (B|KiB)\), 0 kept$/m);
  assert.deepEqual(files(join(d.path, "scout")), before, "a dry run removes nothing");

  const run = await runMain(
    ["system", "clean", "all", "--older", "30d", "--json"],
    storeOpts(d.path),
  );
  assert.equal(run.code, 0, run.stderr);
  const out = JSON.parse(run.stdout);
  assert.equal(out.version, 1);
  assert.equal(out.dryRun, false);
  assert.equal(out.olderSeconds, 30 * 86_400);
  // dependents first: the cake before its batter, the batter before its whisk
  assert.deepEqual(
    out.removed.map((r: { shortPath: string; status: string }) => [r.shortPath, r.status]),
    [
      [JOBS.broken, "error"],
      [JOBS.cake, "done"],
      [JOBS.batter, "done"],
      [JOBS.whisk3, "done"],
    ],
  );
  assert.ok(
    out.bytes > 0 &&
      out.bytes === out.removed.reduce((n: number, r: { bytes: number }) => n + r.bytes, 0),
  );
  for (const j of [JOBS.cake, JOBS.batter, JOBS.whisk3, JOBS.broken]) {
    assert.equal(present(jobPath(d.path, j)), false, j);
  }
  assert.ok(present(jobPath(d.path, JOBS.whisk5)), "a young job stays");
  assert.ok(existsSync(join(d.path, "scout/var/jobs/Baking/cake")), "task directories stay");
});

Deno.test("system clean WORKFLOW without --older: only jobs that never finish go (Scout's meaning)", async () => {
  await using d = await tempDir();
  await bakeStore(d.path);
  for (const j of Object.values(JOBS)) ageJob(jobPath(d.path, j), 100);
  // a job whose process died (kill -9): in progress, its pid (past any pid_max) gone
  const stale = jobPath(d.path, "Baking/whisk/Default_dead");
  writeFileSync(
    stale + ".info",
    JSON.stringify({ status: "start", pid: 2 ** 22 + 7, pid_hostname: Deno.hostname() }),
  );
  ageJob(stale, 2);
  const r = await runMain(["system", "clean", "Baking", "--json"], storeOpts(d.path));
  assert.equal(r.code, 0, r.stderr);
  const removed = JSON.parse(r.stdout).removed.map((
    x: { shortPath: string; status: string },
  ) => [x.shortPath, x.status]);
  assert.deepEqual(removed.sort(), [[JOBS.broken, "error"], [
    "Baking/whisk/Default_dead",
    "stale",
  ]]);
  for (const j of [JOBS.cake, JOBS.batter, JOBS.whisk3, JOBS.whisk5]) {
    assert.ok(present(jobPath(d.path, j)), j);
  }
});

Deno.test("system clean --keep CHAT keeps what its provenance reaches; a job that stays keeps its dependencies", async () => {
  await using d = await tempDir();
  await bakeStore(d.path);
  for (const j of Object.values(JOBS)) ageJob(jobPath(d.path, j), 100);
  writeFileSync(
    join(d.path, "s.chat"),
    `user:\n\nBake\n\nmeta: job=${JOBS.cake}\n\nassistant:\n\nDone\n`,
  );
  const kept = await runMain(
    ["system", "clean", "all", "--older", "30d", "--keep", "s.chat", "--json"],
    storeOpts(d.path),
  );
  assert.equal(kept.code, 0, kept.stderr);
  const out = JSON.parse(kept.stdout);
  assert.deepEqual(out.removed.map((r: { shortPath: string }) => r.shortPath).sort(), [
    JOBS.broken,
    JOBS.whisk5,
  ]);
  for (const j of [JOBS.cake, JOBS.batter, JOBS.whisk3]) assert.ok(present(jobPath(d.path, j)), j);
  assert.deepEqual(
    out.kept.map((k: { shortPath: string; reason: string }) => k.shortPath).sort(),
    [JOBS.batter, JOBS.cake, JOBS.whisk3].sort(),
  );

  // the cake used lately: its batter and whisk, old, stay with it
  ageJob(jobPath(d.path, JOBS.cake), 0);
  const deps = await runMain(
    ["system", "clean", "Baking", "--older", "30d", "--json"],
    storeOpts(d.path),
  );
  assert.equal(deps.code, 0, deps.stderr);
  const o2 = JSON.parse(deps.stdout);
  assert.deepEqual(o2.removed, []);
  assert.deepEqual(
    o2.kept.map((k: { shortPath: string; reason: string }) => [k.shortPath, k.reason]).sort(),
    [
      [JOBS.batter, `a dependency of ${JOBS.cake}, which stays`],
      [JOBS.whisk3, `a dependency of ${JOBS.batter}, which stays`],
    ],
  );
});

Deno.test("system clean: a bad age, --force and '.' are usage errors that remove nothing", async () => {
  await using d = await tempDir();
  await bakeStore(d.path);
  ageJob(jobPath(d.path, JOBS.broken), 100);
  const refused: [string[], string][] = [
    [["--older", "30days"], `--older: "30days" is not an age`],
    [["--older", "1.5d"], `--older: "1.5d" is not an age`],
    [["--older-than", "soon"], `--older: "soon" is not an age`],
    // R163-3: the clock form is held to the same size as the other
    [["--older", "99999999999999999999:0"], `--older: "99999999999999999999:0" is not an age`],
    [["--older", `${"9".repeat(400)}:0`], `--older: "${"9".repeat(400)}:0" is not an age`],
    [["--force"], "--force is not supported: a job in progress is never removed"],
  ];
  for (const [flags, message] of refused) {
    const r = await runMain(["system", "clean", "Baking", ...flags], storeOpts(d.path));
    assert.equal(r.code, 2, flags.join(" "));
    assert.ok(r.stderr.startsWith(`scout-ai: ${message}`), r.stderr);
    assert.ok(r.stderr.endsWith(HINT), r.stderr);
    assert.equal(r.stdout, "");
  }
  const dot = await runMain(["system", "clean", "."], storeOpts(d.path));
  assert.equal(dot.code, 2, dot.stderr);
  assert.ok(present(jobPath(d.path, JOBS.broken)), "nothing removed");
});

Deno.test("system clean keeps a job queued in SLURM, removes one whose SLURM job ended, keeps it when SLURM cannot tell", async () => {
  await using d = await tempDir();
  const bin = join(d.path, "bin");
  mkdirSync(bin);
  const squeue = (script: string) => {
    writeFileSync(join(bin, "squeue"), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  };
  const job = jobPath(d.path, "Baking/cake/Default_queued");
  mkdirSync(join(job, ".."), { recursive: true });
  writeFileSync(
    job + ".info",
    JSON.stringify({ status: "waiting", batch_job: 17, batch_system: "SLURM" }),
  );
  ageJob(job, 100);
  const env = { PATH: `${bin}:${Deno.env.get("PATH")}` };
  const clean = async () => {
    const r = await runMain(
      ["system", "clean", "Baking", "--older", "30d", "--json"],
      storeOpts(d.path, env),
    );
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  squeue(`echo "17|PENDING|Priority"`);
  const queued = await clean();
  assert.deepEqual(queued.kept.map((k: { reason: string }) => k.reason), [
    "queued in SLURM job 17 (PENDING)",
  ]);
  squeue(`echo "slurm_load_jobs error: Unable to contact slurm controller" >&2; exit 1`);
  const unknown = await clean();
  assert.match(
    unknown.kept[0].reason,
    /^queued in SLURM job 17, whose state is not known \(.*Unable to contact/,
  );
  assert.ok(present(job));
  squeue(`exit 0`); // SLURM no longer knows it: it ended before it ran the job
  const ended = await clean();
  assert.deepEqual(ended.removed.map((r: { status: string }) => r.status), ["ended"]);
  assert.equal(present(job), false);
});

Deno.test("system clean: a job in progress on another host stays until untouched for --older", async () => {
  await using d = await tempDir();
  const job = jobPath(d.path, "Baking/cake/Default_elsewhere");
  mkdirSync(join(job, ".."), { recursive: true });
  writeFileSync(
    job + ".info",
    JSON.stringify({ status: "start", pid: 1, pid_hostname: "node-elsewhere" }),
  );
  ageJob(job, 10);
  const young = await runMain(
    ["system", "clean", "Baking", "--older", "30d", "--json"],
    storeOpts(d.path),
  );
  assert.deepEqual(JSON.parse(young.stdout).kept.map((k: { reason: string }) => k.reason), [
    "in progress on node-elsewhere, which cannot be checked from here",
  ]);
  const old = await runMain(
    ["system", "clean", "Baking", "--older", "7d", "--json"],
    storeOpts(d.path),
  );
  assert.deepEqual(JSON.parse(old.stdout).removed.map((r: { status: string }) => r.status), [
    "stale",
  ]);
  assert.equal(present(job), false);
});

Deno.test("system clean without WORKFLOW removes stale locks only, and says how to clean jobs", async () => {
  await using d = await tempDir();
  await bakeStore(d.path);
  ageJob(jobPath(d.path, JOBS.broken), 100);
  const locks = join(d.path, "scout", "tmp", "persist_locks");
  mkdirSync(locks, { recursive: true });
  const stale = join(locks, "gone.persist.lock");
  writeFileSync(stale, `host: ${Deno.hostname()}\npid: ${2 ** 22 + 9}\nppid: 1\ntime: x\n`);
  const r = await runMain(["system", "clean"], storeOpts(d.path));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, `removed stale lock ${stale}\n`);
  assert.match(r.stderr, /No WORKFLOW given: only stale locks were looked at/);
  assert.equal(existsSync(stale), false);
  assert.ok(present(jobPath(d.path, JOBS.broken)), "no job looked at");
});
