/**
 * `deno task test` (tests/support/suite.ts) stops the test SLURM its tests
 * started, and only that. The cluster here is three long-running processes
 * with the pid files `tools/slurm-up` writes (slurmctld, slurmd, munged) and,
 * when the tests started it, its `.owner` mark (`SCOUT_SLURM_OWNER=tests`), in
 * a directory of the test's own named by `SCOUT_SLURM_DIR`; the suite is the
 * real wrapper running a `deno eval` that waits for a file; the stop is the
 * real `tools/slurm-down`.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { DENO, ROOT } from "../support/cli.ts";
import { scenario } from "../support/slurm_stand_ins.ts";

const SUITE = join(ROOT, "tests", "support", "suite.ts");
const STOPPING = /^suite: stopping the test SLURM its tests started \(tools\/slurm-down .*\)\n$/;

/**
 * A suite run whose tests wait for `go` to exist, write `ran`, then exit with
 * `code` (or with 9 once `go`'s directory is gone or after a minute: a failed
 * test leaves no waiter behind for long).
 */
function startSuite(dir: string, go: string, code = 0): Deno.ChildProcess {
  const wait = `import { existsSync, writeFileSync } from "node:fs";
const t0 = Date.now();
while (!existsSync(${JSON.stringify(go)})) {
  if (!existsSync(${JSON.stringify(dirname(go))}) || Date.now() - t0 > 60_000) Deno.exit(9);
  await new Promise((r) => setTimeout(r, 20));
}
writeFileSync(${JSON.stringify(`${go}.ran`)}, "");
Deno.exit(${code});`;
  return new Deno.Command(DENO, {
    args: ["run", "-q", "-A", SUITE, "eval", wait],
    env: { SCOUT_SLURM_DIR: dir },
    stdout: "null",
    stderr: "piped",
  }).spawn();
}

async function registered(dir: string, pid: number): Promise<void> {
  const entry = join(dir, ".suites", String(pid));
  for (let i = 0; i < 500 && !existsSync(entry); i++) await new Promise((r) => setTimeout(r, 20));
  assert(existsSync(entry), `the suite ${pid} never registered (${entry})`);
}

async function exitOf(suite: Deno.ChildProcess): Promise<{ code: number; stderr: string }> {
  const out = await suite.output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("suite: a cluster its tests started is stopped after it, and its exit code kept", () =>
  scenario(async ({ tmp, dir, startCluster }) => {
    const suite = startSuite(dir, join(tmp, "go"), 3);
    await registered(dir, suite.pid);
    const daemons = startCluster({ byTests: true }); // as slurm_support.ts starts it
    Deno.writeTextFileSync(join(tmp, "go"), "");
    const { code, stderr } = await exitOf(suite);
    assert.equal(code, 3);
    assert.match(stderr, STOPPING);
    assert(await daemons.stopped(), "tools/slurm-down stopped every daemon");
    assert(!existsSync(dir), "tools/slurm-down removes the cluster's directory");
  }));

Deno.test("suite: a cluster the tests did not start is left running (up before, as .ci/run's, or started by hand after a killed suite)", () =>
  scenario(async ({ tmp, dir, startCluster }) => {
    const before = startCluster({ byTests: false }); // as .ci/run starts it, before the suite
    Deno.writeTextFileSync(join(tmp, "go"), "");
    assert.deepEqual(await exitOf(startSuite(dir, join(tmp, "go"))), { code: 0, stderr: "" });
    assert.deepEqual(before.running(), [true, true, true]);
    assert.deepEqual(
      Array.from(Deno.readDirSync(join(dir, ".suites"))).filter((e) => /^\d+$/.test(e.name)),
      [],
    );
    // a cluster left by a suite that was killed, then stopped and started by hand
    await before.end();
    Deno.mkdirSync(join(dir, ".suites"), { recursive: true });
    Deno.writeTextFileSync(join(dir, ".suites", "1"), "not pid 1's start time");
    const byHand = startCluster({ byTests: false });
    Deno.writeTextFileSync(join(tmp, "go2"), "");
    assert.deepEqual(await exitOf(startSuite(dir, join(tmp, "go2"))), { code: 0, stderr: "" });
    assert.deepEqual(byHand.running(), [true, true, true]);
  }));

Deno.test("suite: with two suites at once the last one out stops it; a dead or reused pid does not count", () =>
  scenario(async ({ tmp, dir, startCluster }) => {
    const gone = new Deno.Command("true").spawn(); // a registered suite that died without leaving
    await gone.status;
    Deno.mkdirSync(join(dir, ".suites"), { recursive: true });
    Deno.writeTextFileSync(join(dir, ".suites", String(gone.pid)), "");
    // a pid that runs (this test's) but is not the process that registered with it
    Deno.writeTextFileSync(join(dir, ".suites", String(Deno.pid)), "1");
    const first = startSuite(dir, join(tmp, "go1"));
    await registered(dir, first.pid);
    const daemons = startCluster({ byTests: true });
    const second = startSuite(dir, join(tmp, "go2"));
    await registered(dir, second.pid);
    Deno.writeTextFileSync(join(tmp, "go1"), "");
    assert.deepEqual(await exitOf(first), { code: 0, stderr: "" });
    assert.deepEqual(daemons.running(), [true, true, true], "the second suite still uses it");
    Deno.writeTextFileSync(join(tmp, "go2"), "");
    assert.match((await exitOf(second)).stderr, STOPPING);
    assert(await daemons.stopped(), "tools/slurm-down stopped every daemon");
    assert(!existsSync(dir));
  }));

Deno.test("suite: a suite that starts while another is stopping the cluster waits, then runs", () =>
  scenario(async ({ tmp, dir, startCluster }) => {
    const first = startSuite(dir, join(tmp, "go1"));
    await registered(dir, first.pid);
    const daemons = startCluster({ byTests: true, slowStop: true });
    Deno.writeTextFileSync(join(tmp, "go1"), "");
    // the first suite is in tools/slurm-down (~5 s: munged ignores SIGTERM) once slurmd and
    // slurmctld, which it stops first, have ended
    for (let i = 0; i < 500 && daemons.running()[0]; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(daemons.running(), [false, false, true], "the stop is under way");
    Deno.writeTextFileSync(join(tmp, "go2"), "");
    const second = startSuite(dir, join(tmp, "go2"), 4);
    const [a, b] = await Promise.all([exitOf(first), exitOf(second)]);
    assert.match(a.stderr, STOPPING);
    assert.deepEqual(b, { code: 4, stderr: "" }, "the second suite ran, and said nothing");
    assert(existsSync(join(tmp, "go2.ran")));
    assert(await daemons.stopped());
    assert(!existsSync(dir), "nothing left: the second suite removed the registry it made");
  }));

Deno.test("suite: a suite that used no cluster leaves no directory behind (SCOUT_SLURM_DIR with a trailing slash too)", () =>
  scenario(async ({ tmp, dir }) => {
    Deno.writeTextFileSync(join(tmp, "go"), "");
    for (const given of [dir, `${dir}/`]) {
      assert.deepEqual(await exitOf(startSuite(given, join(tmp, "go"))), { code: 0, stderr: "" });
      assert(!existsSync(dir), "only the registry was there: it is removed");
      assert(existsSync(`${dir}.lock`), "the lock is beside the directory");
    }
  }));

Deno.test("suite: a registry that cannot be written costs the stop, never the suite", () =>
  scenario(async ({ tmp }) => {
    Deno.writeTextFileSync(join(tmp, "file"), "");
    const dir = join(tmp, "file", "slurm"); // under a file: nothing can be made there
    Deno.writeTextFileSync(join(tmp, "go"), "");
    const { code, stderr } = await exitOf(startSuite(dir, join(tmp, "go"), 5));
    assert.equal(code, 5);
    assert(existsSync(join(tmp, "go.ran")), "the suite ran");
    assert.match(
      stderr,
      /^suite: cannot register the suite \(.*\); the test SLURM is not stopped\n$/,
    );
  }));

Deno.test("suite: SIGINT or SIGTERM sent to the wrapper alone ends the suite, with its status", () =>
  scenario(async ({ tmp, dir }) => {
    for (const [sig, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
      const suite = startSuite(dir, join(tmp, `never-${sig}`));
      await registered(dir, suite.pid);
      suite.kill(sig); // the wrapper's pid only, not its process group
      const timer = setTimeout(() => suite.kill("SIGKILL"), 10_000);
      const out = await exitOf(suite);
      clearTimeout(timer);
      assert.deepEqual(out, { code, stderr: "" }, `${sig} reached the suite`);
    }
  }));
