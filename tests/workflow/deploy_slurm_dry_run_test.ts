/**
 * `--deploy slurm --dry-run` changes no file (R79-2): not the results and
 * infos `--recompute`/`--clean` would remove (it lists them and counts them
 * as not done), not a live batch directory (a queued batch job keeps its id
 * in the script; with squeue failing, its state unknown, R84-5). Its bash script does what a real run does: run with the
 * stand-in `sbatch`, it writes the same batch directories.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { BAKING, env } from "./cli_support.ts";
import { standInSlurm } from "./deploy_fixtures.ts";

/** Every file and directory under `root`: path → mtime and content. */
function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      const st = statSync(p);
      const what = e.isDirectory() ? "dir" : readFileSync(p, "utf8");
      out.set(relative(root, p), `${st.mtimeMs} ${what}`);
      if (e.isDirectory()) walk(p);
    }
  };
  walk(root);
  return out;
}

const task = (home: string, bin: string, args: string[], extra: Record<string, string> = {}) =>
  runMain(["workflow", "task", BAKING, "cake", ...args], {
    cwd: home,
    env: { ...env(home), PATH: `${bin}:${process.env.PATH}`, ...extra },
  });

Deno.test("slurm --dry-run --recompute/--clean: no result or info is removed; the script says what a real run would remove and submit (R79-2)", async () => {
  await using d = await tempDir();
  const home = join(d.path, "home");
  const bin = standInSlurm(d.path);
  assert.equal((await task(home, bin, [])).code, 0); // whisk, batter, cake done
  const before = snapshot(home);
  assert.equal([...before.keys()].filter((p) => p.startsWith("var/jobs/Baking/")).length, 9);
  const jobs = join(home, "var/jobs/Baking");

  const re = await task(home, bin, ["--deploy", "slurm", "--dry-run", "--recompute"]);
  assert.equal(re.code, 0, re.stderr);
  assert.deepEqual(snapshot(home), before, "a dry run changes no file");
  assert.match(re.stdout, /# A real run first removes the result, info and files of:\n/);
  for (const t of ["whisk/Default", "batter/Default.json", "cake/Default"]) {
    assert.ok(re.stdout.includes(`#   ${join(jobs, t)}\n`), t);
  }
  assert.equal(re.stdout.match(/=\$\(sbatch --parsable /g)?.length, 3);

  const clean = await task(home, bin, ["--deploy", "slurm", "--dry-run", "--clean", "--json"]);
  assert.equal(clean.code, 0, clean.stderr);
  assert.deepEqual(snapshot(home), before);
  const out = JSON.parse(clean.stdout);
  assert.deepEqual(out.wouldClean, [join(jobs, "cake/Default")]);
  assert.deepEqual(out.units.map((u: { job: string; status: string }) => [u.job, u.status]), [
    ["Baking/cake/Default", "dry-run"],
  ]);
  assert.match(out.script, /^id1=\$\(sbatch --parsable \S+\/command\.batch\)$/m);
  assert.equal(
    readFileSync(join(jobs, "cake/Default"), "utf8"),
    "Cake (Whisked 2 soft, 0.5 kg flour, 30 min)\n",
  );
});

Deno.test("slurm --dry-run: a batch job still queued is left alone and shown with its id, not to be submitted (R79-2)", async () => {
  await using d = await tempDir();
  const home = join(d.path, "home");
  const bin = standInSlurm(d.path);
  const pending = { SQ_STATE: "PENDING" };
  const real = await task(home, bin, ["--eggs", "4", "--deploy", "slurm"], pending);
  assert.equal(real.code, 0, real.stderr);
  const before = snapshot(d.path);
  const dry = await task(home, bin, ["--eggs", "4", "--deploy", "slurm", "--dry-run"], pending);
  assert.equal(dry.code, 0, dry.stderr);
  assert.deepEqual(snapshot(d.path), before, "dependencies.list and the rest untouched");
  assert.doesNotMatch(dry.stdout, /sbatch/);
  assert.deepEqual(dry.stdout.match(/^id\d=.*$/gm), ["id1=101", "id2=102", "id3=103"]);
  assert.match(
    dry.stdout,
    /# Baking\/cake\/Default_\w+: SLURM job 103 is still queued; not submitted again\n/,
  );
});

Deno.test("slurm --dry-run: when squeue cannot reach the controller, earlier batch jobs' states are unknown: one warning, a comment per unit, exit 0 (R84-5)", async () => {
  await using d = await tempDir();
  const home = join(d.path, "home");
  const bin = standInSlurm(d.path);
  const real = await task(home, bin, ["--eggs", "4", "--deploy", "slurm"], { SQ_STATE: "PENDING" });
  assert.equal(real.code, 0, real.stderr);
  const before = snapshot(d.path);
  const dry = await task(home, bin, ["--eggs", "4", "--deploy", "slurm", "--dry-run"], {
    SQ_FAIL: "1",
  });
  assert.equal(dry.code, 0, dry.stderr);
  assert.deepEqual(snapshot(d.path), before, "nothing written");
  assert.equal(dry.stderr.match(/warning/g)?.length, 1, dry.stderr);
  assert.match(
    dry.stderr,
    /^scout-ai: warning: squeue failed \(slurm_load_jobs error: Unable to contact slurm controller \(connect failure\)\): the state of SLURM jobs 101, 102, 103 is unknown; /,
  );
  assert.match(
    dry.stdout,
    /^# SLURM job 103: state unknown \(squeue: slurm_load_jobs error: Unable to contact slurm controller \(connect failure\)\); a real run asks again and submits this only when that job no longer runs it\n# Baking\/cake\/Default_\w+\nmkdir -p /m,
  );
  assert.equal(dry.stdout.match(/state unknown/g)?.length, 3);
  assert.equal(dry.stdout.match(/^id\d=\$\(sbatch /gm)?.length, 3);
  // a real run still fails rather than submit a job that may still be queued
  const failing = await task(home, bin, ["--eggs", "4", "--deploy", "slurm"], { SQ_FAIL: "1" });
  assert.equal(failing.code, 1);
  assert.match(failing.stderr, /squeue failed 5 times/);
});

Deno.test("slurm --dry-run: its script, run, writes the batch directories a real run writes (R79-2)", async () => {
  await using d = await tempDir();
  const home = join(d.path, "home");
  const bin = standInSlurm(d.path);
  const real = await task(home, bin, ["--toppings", "a'b\nSCOUT_AI_EOF\nc", "--deploy", "slurm"]);
  assert.equal(real.code, 0, real.stderr);
  const base = join(home, "var/batch");
  const written = snapshot(base);
  rmSync(base, { recursive: true });
  writeFileSync(join(d.path, "sbatch.count"), "100\n");
  const dry = await task(home, bin, [
    "--toppings",
    "a'b\nSCOUT_AI_EOF\nc",
    "--deploy",
    "slurm",
    "--dry-run",
  ]);
  assert.equal(dry.code, 0, dry.stderr);
  const script = await new Deno.Command("bash", {
    args: ["-c", dry.stdout],
    env: { PATH: `${bin}:${process.env.PATH}` },
  }).output();
  assert.equal(script.code, 0, new TextDecoder().decode(script.stderr));
  const contents = (m: Map<string, string>) =>
    new Map([...m].map(([k, v]) => [k, v.replace(/^\S+ /, "")]));
  assert.deepEqual(contents(snapshot(base)), contents(written));
  // 3 directories of command.batch, jobs.list, dependencies.list and job.id
  assert.equal(written.size, 3 + 3 * 4);
});
