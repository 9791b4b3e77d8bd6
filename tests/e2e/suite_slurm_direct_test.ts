/**
 * A test file run with `deno test` directly (not through `deno task test`'s
 * wrapper) stops the test SLURM its tests started once its process ends: the
 * process registers as a user of the cluster and starts a watcher
 * (`tests/support/suite.ts --leave-after <pid>`) that leaves on its behalf,
 * by the wrapper's rule — the last user out stops a cluster that is the
 * tests'. The "test process" here is a real `deno run -P=test` of the
 * registration `slurm_support.ts` makes; the cluster is stand-in daemons; the
 * stop is the real `tools/slurm-down`.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { DENO, ROOT } from "../support/cli.ts";
import { scenario } from "../support/slurm_stand_ins.ts";

const SUITE = join(ROOT, "tests", "support", "suite.ts");
const NO_PROC = ["-R", "-W", "-E", "-N", "--allow-run", "--allow-sys"];

/**
 * Starts a process that registers as `slurm_support.ts` does, prints whether
 * it started a watcher, and ends once `go` exists (at once without one);
 * `env` is its whole environment (no wrapper's `SCOUT_SUITE_PID` unless given).
 */
function testProcess(
  tmp: string,
  dir: string,
  opts: { go?: string; env?: object; noProc?: boolean } = {},
) {
  const script = join(tmp, `test_process_${crypto.randomUUID()}.ts`);
  Deno.writeTextFileSync(
    script,
    `import { existsSync } from "node:fs";
import { clusterDir, enter, leaveWhenEnded } from ${JSON.stringify(SUITE)};
await enter(clusterDir());
console.log(await leaveWhenEnded(clusterDir()));
const go = ${JSON.stringify(opts.go ?? null)};
for (let i = 0; go !== null && !existsSync(go) && i < 1500; i++) {
  await new Promise((r) => setTimeout(r, 20));
}`,
  );
  const child = new Deno.Command(DENO, {
    // noProc: the permissions of -P=test before it had all (R145-4): /proc unreadable, the
    // process registers without its start time and its watcher fills it in
    args: [
      "run",
      "-q",
      ...(opts.noProc ? NO_PROC : ["-P=test"]),
      `--config=${join(ROOT, "deno.json")}`,
      script,
    ],
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "", SCOUT_SLURM_DIR: dir, ...opts.env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  return {
    pid: child.pid,
    async ended() {
      const out = await child.output();
      const text = (b: Uint8Array) => new TextDecoder().decode(b);
      assert.equal(out.code, 0, text(out.stderr));
      return { watcher: text(out.stdout).trim() === "true" };
    },
  };
}

/** The registrations of the cluster in `dir`: pid → what each holds. */
const registrations = (dir: string) =>
  existsSync(join(dir, ".suites"))
    ? Object.fromEntries(
      [...Deno.readDirSync(join(dir, ".suites"))].filter((e) => /^\d+$/.test(e.name))
        .map((e) => [e.name, Deno.readTextFileSync(join(dir, ".suites", e.name))]),
    )
    : {};

/** Waits (up to 10 s) until `cond` holds. */
async function until(cond: () => boolean): Promise<boolean> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 20));
  return cond();
}

/** Waits until no one holds the registry's lock (a watcher's leave, stop included, is over). */
async function settled(dir: string): Promise<void> {
  using lock = await Deno.open(`${dir}.lock`, { read: true });
  await lock.lock(true);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("direct deno test: the cluster its tests started is stopped once its process ends, not before", () =>
  scenario(async ({ tmp, dir, startCluster }) => {
    const daemons = startCluster({ byTests: true });
    const go = join(tmp, "go");
    const proc = testProcess(tmp, dir, { go });
    // the watcher records the test process's start time (which it cannot read itself)
    assert(await until(() => /^\d+$/.test(registrations(dir)[proc.pid] ?? "")));
    await sleep(1_000); // five of the watcher's checks
    assert.deepEqual(daemons.running(), [true, true, true], "still in use");
    Deno.writeTextFileSync(go, "");
    assert.equal((await proc.ended()).watcher, true);
    assert(await daemons.stopped(), "tools/slurm-down stopped every daemon");
    assert(await until(() => !existsSync(dir)), "tools/slurm-down removes the cluster's directory");
  }));

Deno.test("direct deno test: no stop while another user runs, nor of a cluster the tests did not start", () =>
  scenario(async ({ tmp, dir, startCluster }) => {
    const daemons = startCluster({ byTests: true });
    const other = new Deno.Command("sleep", { args: ["60"] }).spawn(); // another user, registered
    try {
      Deno.mkdirSync(join(dir, ".suites"), { recursive: true });
      Deno.writeTextFileSync(join(dir, ".suites", String(other.pid)), "");
      await testProcess(tmp, dir).ended();
      assert(await until(() => Object.keys(registrations(dir)).length === 1), "the watcher left");
      await settled(dir);
      assert.deepEqual(Object.keys(registrations(dir)), [String(other.pid)]);
      assert.deepEqual(daemons.running(), [true, true, true], "the other user still uses it");
    } finally {
      other.kill("SIGKILL");
      await other.status;
    }
    await daemons.end();
    const byHand = startCluster({ byTests: false });
    Deno.removeSync(join(dir, ".owner"), { recursive: true }); // started by hand: no mark
    await testProcess(tmp, dir).ended();
    assert(await until(() => Object.keys(registrations(dir)).length === 0), "the watcher left");
    await settled(dir);
    await sleep(200);
    assert.deepEqual(byHand.running(), [true, true, true], "never stopped");
  }));

Deno.test("direct deno test: a registration its pid's new process made is not the watcher's to end", () =>
  scenario(async ({ tmp, dir, startCluster }) => {
    const daemons = startCluster({ byTests: true });
    const go = join(tmp, "go");
    // registered without its start time: the watcher's fill-in shows it runs (with /proc the
    // process writes its own, and a process ended before its watcher read it is simply gone)
    const proc = testProcess(tmp, dir, { go, noProc: true });
    assert(await until(() => /^\d+$/.test(registrations(dir)[proc.pid] ?? "")));
    // as if the pid were reused by a new user that registered before the watcher's leave
    Deno.writeTextFileSync(join(dir, ".suites", String(proc.pid)), "");
    Deno.writeTextFileSync(go, "");
    await proc.ended();
    await sleep(600); // the watcher sees the end
    await settled(dir);
    assert.deepEqual(registrations(dir), { [proc.pid]: "" }, "kept");
    assert.deepEqual(daemons.running(), [true, true, true]);
  }));

Deno.test("direct deno test: under a running wrapper no watcher runs; a stale SCOUT_SUITE_PID is ignored", () =>
  scenario(async ({ tmp, dir, startCluster }) => {
    const daemons = startCluster({ byTests: true });
    const under = await testProcess(tmp, dir, { env: { SCOUT_SUITE_PID: String(Deno.pid) } })
      .ended();
    assert.equal(under.watcher, false);
    await sleep(1_500); // what a watcher would have needed
    assert.equal(
      Object.keys(registrations(dir)).length,
      1,
      "its registration waits for the wrapper",
    );
    assert.deepEqual(daemons.running(), [true, true, true]);
    const gone = new Deno.Command("true").spawn(); // a wrapper killed without leaving
    await gone.status;
    const stale = await testProcess(tmp, dir, { env: { SCOUT_SUITE_PID: String(gone.pid) } })
      .ended();
    assert.equal(stale.watcher, true);
    assert(await daemons.stopped(), "the last one out (the dead ones do not count) stopped it");
  }));
