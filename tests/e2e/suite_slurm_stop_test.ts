/**
 * `deno task test` (tests/support/suite.ts) stops the test SLURM it started,
 * and only that. The cluster here is three long-running processes with the pid
 * files `tools/slurm-up` writes (slurmctld, slurmd, munged) in a directory of
 * the test's own, named by `SCOUT_SLURM_DIR`; the suite is the real wrapper
 * running a `deno eval` that waits for a file; the stop is the real
 * `tools/slurm-down`.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { DENO, ROOT } from "../support/cli.ts";

const SUITE = join(ROOT, "tests", "support", "suite.ts");

interface Daemons {
  children: Deno.ChildProcess[];
  /** Whether each still runs. */
  running(): boolean[];
  /** Whether all ended within 10 s. */
  stopped(): Promise<boolean>;
  /** Ends them (the ones a stop did not end). */
  end(): Promise<void>;
}

/** Three processes standing for the cluster, with `tools/slurm-up`'s pid files. */
function startDaemons(dir: string): Daemons {
  Deno.mkdirSync(dir, { recursive: true });
  const ended: boolean[] = [false, false, false];
  const children = ["slurmctld", "slurmd", "munged"].map((name, i) => {
    const child = new Deno.Command("sleep", { args: ["600"], stdout: "null", stderr: "null" })
      .spawn();
    child.status.then(() => ended[i] = true);
    Deno.writeTextFileSync(join(dir, `${name}.pid`), `${child.pid}\n`);
    return child;
  });
  return {
    children,
    running: () => ended.map((e) => !e),
    async stopped() {
      for (let i = 0; i < 500 && ended.some((e) => !e); i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      return ended.every((e) => e);
    },
    async end() {
      for (const [i, c] of children.entries()) if (!ended[i]) c.kill("SIGKILL");
      await Promise.all(children.map((c) => c.status));
    },
  };
}

/**
 * A suite run whose tests wait for `go` to exist, then exit with `code` (or
 * with 9 once `go`'s directory is gone or after a minute: a failed test
 * leaves no waiter behind for long).
 */
function startSuite(dir: string, go: string, code = 0): Deno.ChildProcess {
  const wait = `import { existsSync } from "node:fs";
const t0 = Date.now();
while (!existsSync(${JSON.stringify(go)})) {
  if (!existsSync(${JSON.stringify(dirname(go))}) || Date.now() - t0 > 60_000) Deno.exit(9);
  await new Promise((r) => setTimeout(r, 20));
}
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

async function exitOf(suite: Deno.ChildProcess): Promise<number> {
  const out = await suite.output();
  assert.deepEqual(new TextDecoder().decode(out.stderr), "", "the suite wrapper wrote to stderr");
  return out.code;
}

interface Scenario {
  /** The test's temp directory (the `go` files). */
  tmp: string;
  /** The cluster's directory (`SCOUT_SLURM_DIR`). */
  dir: string;
  /** Starts the cluster's daemons (ended after the test if a stop did not). */
  startCluster(): Daemons;
}

/** Runs `body` in a temp directory; ends what it started and removes the directory after. */
async function scenario(body: (s: Scenario) => Promise<void>): Promise<void> {
  const tmp = Deno.makeTempDirSync({ prefix: "scout-suite-" });
  const dir = join(tmp, "slurm");
  let daemons: Daemons | undefined;
  try {
    await body({ tmp, dir, startCluster: () => daemons = startDaemons(dir) });
  } finally {
    await daemons?.end();
    Deno.removeSync(tmp, { recursive: true });
  }
}

Deno.test("suite: a cluster started while the suite ran is stopped after it, and its exit code kept", () =>
  scenario(async ({ tmp, dir, startCluster }) => {
    const suite = startSuite(dir, join(tmp, "go"), 3);
    await registered(dir, suite.pid);
    const daemons = startCluster(); // as slurm_support.ts starts it, from a test
    Deno.writeTextFileSync(join(tmp, "go"), "");
    assert.deepEqual(await exitOf(suite), 3);
    assert(await daemons.stopped(), "tools/slurm-down stopped every daemon");
    assert(!existsSync(dir), "tools/slurm-down removes the cluster's directory");
  }));

Deno.test("suite: a cluster that was up before the suite began is left running", () =>
  scenario(async ({ tmp, dir, startCluster }) => {
    const daemons = startCluster(); // as .ci/run starts it, before the suite
    Deno.writeTextFileSync(join(tmp, "go"), "");
    assert.deepEqual(await exitOf(startSuite(dir, join(tmp, "go"))), 0);
    assert.deepEqual(daemons.running(), [true, true, true]);
    assert.deepEqual(
      Array.from(Deno.readDirSync(join(dir, ".suites"))).filter((e) => /^\d+$/.test(e.name)),
      [],
    );
  }));

Deno.test("suite: with two suites at once the last one out stops it; a dead suite does not count", () =>
  scenario(async ({ tmp, dir, startCluster }) => {
    // a registered suite that died without leaving
    const gone = new Deno.Command("true").spawn();
    await gone.status;
    Deno.mkdirSync(join(dir, ".suites"), { recursive: true });
    Deno.writeTextFileSync(join(dir, ".suites", String(gone.pid)), "");
    const first = startSuite(dir, join(tmp, "go1"));
    await registered(dir, first.pid);
    const daemons = startCluster();
    const second = startSuite(dir, join(tmp, "go2"));
    await registered(dir, second.pid);
    Deno.writeTextFileSync(join(tmp, "go1"), "");
    assert.deepEqual(await exitOf(first), 0);
    assert.deepEqual(daemons.running(), [true, true, true], "the second suite still uses it");
    Deno.writeTextFileSync(join(tmp, "go2"), "");
    assert.deepEqual(await exitOf(second), 0);
    assert(await daemons.stopped(), "tools/slurm-down stopped every daemon");
    assert(!existsSync(dir));
  }));

Deno.test("suite: a suite that used no cluster leaves no directory behind", () =>
  scenario(async ({ tmp, dir }) => {
    Deno.writeTextFileSync(join(tmp, "go"), "");
    assert.deepEqual(await exitOf(startSuite(dir, join(tmp, "go"))), 0);
    assert(!existsSync(dir), "only the registry was there: it is removed");
  }));
