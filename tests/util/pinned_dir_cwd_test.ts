/**
 * Removing in a directory entered and checked (`util/pinned_dir.ts`) leaves
 * the process's working directory alone (R145-4): it is shared by every
 * thread of the process — `deno test --parallel` runs test files as threads
 * of one process, a library user may run workers — and a `chdir` there made
 * another thread's clean refuse ("it is now" the other thread's directory),
 * restore the working directory to another thread's, or leave the process in
 * a directory since removed. Where `/proc/self/fd` cannot be used (Deno
 * without `--allow-all`) the working directory still stands for the
 * directory, and a link swapped in is still not followed.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { DENO, ROOT, runCommand, tempDir } from "../support/cli.ts";
import { inRealDir, pathIn, removeHere } from "../../src/util/pinned_dir.ts";
import { churn } from "../support/pinned_dir_worker.ts";

Deno.test("inRealDir and removeHere never change the working directory, nested directories included (R145-4)", async () => {
  await using d = await tempDir();
  const dir = join(d.path, "store", "t");
  mkdirSync(join(dir, "job.files", "a", "b", "c"), { recursive: true });
  writeFileSync(join(dir, "job.files", "a", "b", "c", "x"), "x");
  writeFileSync(join(dir, "job"), "result");
  const start = process.cwd();
  const seen = inRealDir(dir, (here) => {
    assert.equal(process.cwd(), start, "the working directory, inside");
    removeHere("job.files", here);
    removeHere("job", here);
    return process.cwd();
  });
  assert.equal(seen, start, "the working directory, after a nested removal");
  assert.equal(process.cwd(), start);
  assert.equal(existsSync(join(dir, "job.files")) || existsSync(join(dir, "job")), false);
});

Deno.test("a file system error inside names the directory's real path, not its descriptor's", async () => {
  await using d = await tempDir();
  const dir = join(d.path, "t");
  mkdirSync(join(dir, "full"), { recursive: true });
  writeFileSync(join(dir, "full", "x"), "x");
  let message = "";
  try {
    inRealDir(dir, (here) => rmdirSync(pathIn(here, "full")));
  } catch (e) {
    message = (e as Error).message;
  }
  assert.match(message, new RegExp(`ENOTEMPTY.*'${join(dir, "full")}'`));
  assert.doesNotMatch(message, /\/proc\//);
});

Deno.test("cleans in a worker thread: no chdir there, none refused, the working directory never moved (R145-4)", async () => {
  await using d = await tempDir();
  const start = process.cwd();
  const worker = new Worker(new URL("../support/pinned_dir_worker.ts", import.meta.url));
  try {
    const theirs = new Promise<{ errors: string[]; cwds: string[] }>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    worker.postMessage({ base: join(d.path, "w"), rounds: 100 });
    const mine = churn(join(d.path, "m"), 100);
    const other = await theirs;
    assert.deepEqual({ mine, other }, { mine: { errors: [], cwds: [] }, other: mine });
  } finally {
    await worker.terminate();
  }
  assert.equal(process.cwd(), start);
});

Deno.test("cleans in test files run by deno test --parallel, threads of one process: none refused, none moved the working directory (R145-4)", async () => {
  await using d = await tempDir();
  const churnUrl = pathToFileURL(join(ROOT, "tests", "support", "pinned_dir_worker.ts")).href;
  const files = [0, 1, 2].map((i) => {
    const file = join(d.path, `churn${i}_test.ts`);
    writeFileSync(
      file,
      `import { churn } from ${JSON.stringify(churnUrl)};\n` +
        `Deno.test("churn ${i}", () => {\n` +
        `  const r = churn(${JSON.stringify(join(d.path, `t${i}`))}, 150);\n` +
        `  if (r.errors.length + r.cwds.length > 0) throw new Error(JSON.stringify(r));\n` +
        `});\n`,
    );
    return file;
  });
  const r = await runCommand(
    DENO,
    [
      "test",
      "-q",
      "-A",
      "--no-check",
      "--parallel",
      `--config=${join(ROOT, "deno.json")}`,
      ...files,
    ],
    { cwd: d.path, env: { DENO_JOBS: "3" } },
  );
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /ok \| 3 passed/);
});

Deno.test("without /proc/self/fd (Deno without --allow-all): a link swapped in after the check is still not followed", async () => {
  await using d = await tempDir();
  const dir = join(d.path, "store", "t");
  mkdirSync(join(dir, "job.files", "sub"), { recursive: true });
  writeFileSync(join(dir, "job.files", "sub", "x"), "x");
  const victim = join(d.path, "a");
  mkdirSync(join(victim, "job.files", "sub"), { recursive: true });
  writeFileSync(join(victim, "job.files", "sub", "x"), "A's");
  const script = join(ROOT, "tests", "support", "pinned_dir_fallback.ts");
  const r = await runCommand(DENO, ["run", "-q", "-R", "-W", script, dir, victim], {});
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), {
    proc: false,
    inside: dir + ".aside", // the directory entered, whatever its path has become: the fallback
    after: ROOT,
  });
  assert.ok(existsSync(join(victim, "job.files", "sub", "x")), "A's file stays");
  assert.equal(existsSync(join(dir + ".aside", "job.files")), false, "the store's job files went");
});
