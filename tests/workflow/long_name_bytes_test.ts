/**
 * Names a file system cannot hold (R102-7): Scout's rules shorten job names
 * and persist-lock names by characters, so a job named with non-ASCII
 * characters got a lock name (65 CJK characters) or a file name (150 CJK
 * characters, 450 bytes) over the 255 bytes of a Linux file name, and could
 * not run: `Cannot create the lock "…": the name is too long`, exit 1.
 * [TS-FIX]: only a name Scout cannot create is shortened by bytes; every
 * other stays byte-identical to Scout's rule. Real files in temp dirs.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { input, workflow } from "../../src/workflow/define.ts";
import { createJob, jobAt } from "../../src/workflow/job.ts";
import { fitJobName } from "../../src/workflow/job_name.ts";
import { cleanJob, runJob } from "../../src/workflow/run.ts";
import { jobInfo } from "../../src/workflow/info.ts";
import { acquireLock } from "../../src/workflow/lock.ts";
import { jobsIn, lockPathFor } from "../../src/workflow/store.ts";
import { md5hex } from "../../src/util/hash.ts";
import { utf8Length } from "../../src/util/name_bytes.ts";
import { homeIn, runMain, tempDir } from "../support/cli.ts";
import { env, userWorkflow } from "./cli_support.ts";

const K = "漢"; // 3 bytes in UTF-8
const E = "\u{1F600}"; // 4 bytes, a surrogate pair
const bytes = (s: string) => utf8Length(s);

/** Scout's lock name rule as the spec states it (§3.4), characters only. */
function scoutLockName(jobPath: string): string {
  const n = [...(jobPath + ".persist").replace(/\s/g, "_").replaceAll("/", "·")];
  return (n.length > 160 ? n.slice(0, 151).join("") + md5hex(n.slice(151).join("")) : n.join("")) +
    ".lock";
}

Deno.test("lock names Scout can create stay Scout's, byte for byte", () => {
  const paths = [
    "/home/u/.scout/var/jobs/Slow/nap/Default", // short
    "/j/" + "x".repeat(300), // over 160 characters, ASCII
    "/x/" + K.repeat(79), // 250 bytes before `.lock`: the most that fits
    "/j/" + "a".repeat(100) + "é".repeat(100), // over 160 characters: Scout's 151 + md5 fit
  ];
  for (const p of paths) {
    const got = basename(lockPathFor(p, "/l"));
    assert.equal(got, scoutLockName(p), p.slice(0, 20));
    assert.ok(bytes(got) <= 255);
  }
  assert.equal(bytes(scoutLockName("/x/" + K.repeat(79))), 255);
});

Deno.test("a lock name Scout cannot create is shortened by bytes, with the md5 of the cut", () => {
  for (
    const p of [
      "/x/" + K.repeat(80),
      "/home/u/.scout/var/jobs/WF/task/" + K.repeat(70),
      "/j/" + K.repeat(300),
    ]
  ) {
    assert.ok(bytes(scoutLockName(p)) > 255, "Scout's own name is too long");
    const got = basename(lockPathFor(p, "/l"));
    assert.ok(bytes(got) <= 255, `${bytes(got)} bytes`);
    const full = (p + ".persist").replaceAll("/", "·");
    const head = got.slice(0, -".lock".length - 32);
    assert.ok(full.startsWith(head) && bytes(head) > 200);
    assert.equal(got, head + md5hex(full.slice(head.length)) + ".lock");
  }
  // emoji: never half a surrogate pair; names differing only in what was cut differ
  const a = basename(lockPathFor("/x/" + E.repeat(70) + "a", "/l"));
  const b = basename(lockPathFor("/x/" + E.repeat(70) + "b", "/l"));
  assert.notEqual(a, b);
  assert.ok(a.isWellFormed() && bytes(a) <= 255);
});

Deno.test("job names that fit stay Scout's; longer ones are shortened by bytes, extension kept", () => {
  const digest = "_" + md5hex("x");
  // fits: unchanged (ASCII at Scout's longest, 249 bytes of CJK, an emoji name with its digest)
  for (
    const [id, tail] of [["a".repeat(150), digest + ".chat"], [K.repeat(83), ""], [
      E.repeat(52),
      digest + ".json",
    ]] as const
  ) {
    assert.equal(fitJobName(id, tail), id + tail);
  }
  assert.equal(bytes(K.repeat(83)) + ".files".length, 255);
  // too long: `<head>--<md5 of the cut><id's extension><tail>`, at most 249 bytes
  const cases: [string, string, string][] = [
    [K.repeat(84), "", ""],
    [K.repeat(150), digest + ".json", ""],
    [K.repeat(120) + ".txt", digest, ".txt"],
    [E.repeat(100), ".chat", ""],
  ];
  for (const [id, tail, ext] of cases) {
    const got = fitJobName(id, tail);
    assert.ok(bytes(got) <= 249 && bytes(got) > 249 - 4, `${bytes(got)} bytes`);
    assert.ok(got.isWellFormed());
    assert.ok(got.endsWith(ext + tail));
    const m = /^(.*)--([0-9a-f]{32})$/s.exec(got.slice(0, got.length - ext.length - tail.length))!;
    const stem = id.slice(0, id.length - ext.length);
    assert.ok(stem.startsWith(m[1]!));
    assert.equal(m[2], md5hex(stem.slice(m[1]!.length)));
  }
  assert.notEqual(fitJobName(K.repeat(99) + "a", ""), fitJobName(K.repeat(99) + "b", ""));
});

/** `top` (json, a non-default input: digest) depends on `base` (named by its jobname input). */
function longWorkflow(dir: string, runs: string[]) {
  const locks = join(homeIn(dir).SCOUT_HOME, "tmp", "persist_locks");
  return workflow("Long", {
    jobsDir: join(dir, "jobs"),
    tasks: {
      base: {
        type: "string",
        inputs: { who: input.string({ jobname: true }) },
        run: ({ who }, job) => {
          const lock = lockPathFor(job.path, locks);
          runs.push(`base ${existsSync(lock)} ${bytes(basename(lock))}`);
          writeFileSync(job.tmpPath, `${[...String(who)].length} characters`); // `.X`
          return null;
        },
      },
      top: {
        type: "json",
        inputs: { n: input.integer({ default: 1 }) },
        deps: ["base"],
        run: async ({ n }, job) => {
          runs.push(`top ${existsSync(lockPathFor(job.path, locks))}`);
          writeFileSync(job.file("note.txt"), "artifact");
          return { n, base: await job.load("base") };
        },
      },
    },
  });
}

Deno.test("a job named with 150 CJK characters runs, is found again and loaded, and cleaned", async () => {
  await using d = await tempDir();
  const runs: string[] = [];
  const wf = longWorkflow(d.path, runs);
  const opts = { env: homeIn(d.path), jobname: K.repeat(150), inputs: { n: 2 } };
  const top = createJob(wf, "top", opts);
  const base = top.deps[0]!;
  assert.equal(base.id, K.repeat(150)); // the id: Scout's, unchanged
  for (const j of [top, base]) assert.ok(bytes(j.name) <= 249, `${j.name}: ${bytes(j.name)}`);
  assert.match(top.name, /--[0-9a-f]{32}_[0-9a-f]{32}\.json$/);
  assert.match(base.name, new RegExp(`^${K}{70,}--[0-9a-f]{32}$`));
  const want = { n: 2, base: "150 characters" };
  assert.deepEqual(await runJob(top), want);
  // both ran inside their own locks (the lock names fit), which are released
  assert.deepEqual(runs.map((r) => r.replace(/ \d+$/, "")), ["base true", "top true"]);
  assert.ok(Number(runs[0]!.split(" ")[2]) <= 255);
  assert.deepEqual(readdirSync(top.store.lockDir), []);
  assert.ok(existsSync(top.path + ".info") && existsSync(join(top.path + ".files", "note.txt")));
  // a second run finds them: loaded, not recomputed
  const again = createJob(wf, "top", opts);
  assert.equal(again.path, top.path);
  assert.deepEqual(await runJob(again), want);
  assert.equal(runs.length, 2);
  // what walks the store finds them: the task directory's jobs, the job read back from disk
  assert.deepEqual(jobsIn(dirname(top.path)), [top.path]);
  const back = jobAt(top.path, { store: top.store });
  assert.equal(back.deps[0]!.path, base.path);
  assert.equal((await jobInfo(base.path))?.status, "done");
  await cleanJob(top);
  assert.deepEqual(jobsIn(dirname(top.path)), []);
});

Deno.test("a job whose name fits keeps Scout's name; only its lock name is shortened", async () => {
  await using d = await tempDir();
  const runs: string[] = [];
  const wf = longWorkflow(d.path, runs);
  const job = createJob(wf, "base", { env: homeIn(d.path), inputs: { who: K.repeat(83) } });
  assert.equal(job.name, K.repeat(83)); // 249 bytes: `.files` still fits
  assert.ok(bytes(scoutLockName(job.path)) > 255);
  assert.equal(await runJob(job), "83 characters");
  assert.deepEqual(runs.map((r) => r.split(" ")[1]), ["true"]);
  assert.ok(existsSync(job.path));
  assert.deepEqual(readdirSync(job.store.lockDir), []);
});

Deno.test("a stale lock whose name is near 255 bytes is taken over (its gate's name fits)", async () => {
  await using d = await tempDir();
  const dir = join(d.path, "locks");
  mkdirSync(dir, { recursive: true });
  // Scout's own lock name, 253 to 255 bytes: its gate `<lock>.takeover` would not fit
  const room = 250 - bytes((d.path + "/.persist").replaceAll("/", "·"));
  const job = join(d.path, K.repeat(Math.floor(room / 3)));
  const path = lockPathFor(job, dir);
  assert.equal(basename(path), scoutLockName(job));
  assert.ok(bytes(basename(path)) > 255 - ".takeover".length);
  writeFileSync(path, `host: ${hostname()}\npid: 1\nppid: 1\ntime: 2026-01-01 00:00:00.000000\n`);
  const old = new Date(Date.now() - 3_600_000);
  utimesSync(path, old, old); // not refreshed for an hour: stale
  const lock = await acquireLock(job, dir, { timeoutMs: 5_000 });
  assert.equal(lock.path, path);
  lock.release();
  assert.deepEqual(readdirSync(dir), []);
});

Deno.test("workflow task/info/list: a job named with 150 CJK characters, as a user runs it", async () => {
  await using d = await tempDir();
  const body = `import { appendFileSync } from "node:fs";
export default (api) => api.workflow("Long", { tasks: { echo: { type: "string",
  inputs: { who: api.input.string({ jobname: true }), n: api.input.integer({ default: 1 }) },
  run: ({ who, n }) => { appendFileSync(${JSON.stringify(join(d.path, "runs"))}, "run\\n");
    return [...who].length + ":" + n; } } } });`;
  userWorkflow(d.path, "Long", body);
  const o = { cwd: d.path, env: env(d.path) };
  const args = ["workflow", "task", "Long", "echo", "--who", K.repeat(150), "--n", "2"];
  let r = await runMain([...args, "--print-path"], o);
  assert.equal(r.code, 0, r.stderr); // before: exit 1, `Cannot create the lock "…": the name is too long`
  const path = r.stdout.trim();
  assert.ok(existsSync(path) && bytes(basename(path)) <= 249);
  r = await runMain(args, o);
  assert.deepEqual([r.code, r.stdout], [0, "150:2\n"]);
  assert.equal(Deno.readTextFileSync(join(d.path, "runs")), "run\n"); // loaded the second time
  r = await runMain(["workflow", "info", path, "--json"], o);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).status, "done");
  r = await runMain(["workflow", "info", "Long/echo/" + K.repeat(20)], o); // a prefix of its name
  assert.equal(r.code, 0, r.stderr);
  r = await runMain(["workflow", "list", "Long", "--json"], o);
  const listed = JSON.parse(r.stdout).tasks[0].jobs;
  assert.deepEqual(listed.map((j: { path: string; status: string }) => [j.path, j.status]), [
    [path, "done"],
  ]);
  r = await runMain([...args, "--clean"], o); // removed and run again
  assert.deepEqual([r.code, r.stdout], [0, "150:2\n"]);
  assert.equal(Deno.readTextFileSync(join(d.path, "runs")), "run\nrun\n");
});
