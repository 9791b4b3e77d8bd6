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

/**
 * Runs a process that registers as `slurm_support.ts` does, prints whether it
 * started a watcher, and ends; `env` is its whole environment (no wrapper's
 * `SCOUT_SUITE_PID` unless given).
 */
async function testProcess(tmp: string, dir: string, env: Record<string, string> = {}) {
  const script = join(tmp, "test_process.ts");
  Deno.writeTextFileSync(
    script,
    `import { clusterDir, enter, leaveWhenEnded } from ${JSON.stringify(SUITE)};
await enter(clusterDir());
console.log(await leaveWhenEnded(clusterDir()));`,
  );
  const out = await new Deno.Command(DENO, {
    args: ["run", "-q", "-P=test", `--config=${join(ROOT, "deno.json")}`, script],
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "", SCOUT_SLURM_DIR: dir, ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  assert.equal(out.code, 0, text(out.stderr));
  return { watcher: text(out.stdout).trim() === "true" };
}

/** The numeric registrations of the cluster in `dir`. */
const registrations = (dir: string) =>
  existsSync(join(dir, ".suites"))
    ? [...Deno.readDirSync(join(dir, ".suites"))].map((e) => e.name).filter((n) => /^\d+$/.test(n))
    : [];

/** Waits (up to 10 s) until `cond` holds. */
async function until(cond: () => boolean): Promise<boolean> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 20));
  return cond();
}

Deno.test("direct deno test: the cluster its tests started is stopped once its process ends", () =>
  scenario(async ({ tmp, dir, startCluster }) => {
    const daemons = startCluster({ byTests: true });
    const { watcher } = await testProcess(tmp, dir);
    assert(watcher, "a watcher was started");
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
      await testProcess(tmp, dir);
      assert(
        await until(() => registrations(dir).length === 1),
        `the watcher left: ${registrations(dir)}`,
      );
      assert.deepEqual(registrations(dir), [String(other.pid)]);
      assert.deepEqual(daemons.running(), [true, true, true], "the other user still uses it");
    } finally {
      other.kill("SIGKILL");
      await other.status;
    }
    await daemons.end();
    const byHand = startCluster({ byTests: false });
    Deno.removeSync(join(dir, ".owner"), { recursive: true }); // started by hand: no mark
    await testProcess(tmp, dir);
    assert(await until(() => registrations(dir).length === 0), "the watcher left");
    assert.deepEqual(byHand.running(), [true, true, true], "never stopped");
  }));

Deno.test("direct deno test: under the suite's wrapper no watcher runs (the wrapper leaves for its tests)", () =>
  scenario(async ({ tmp, dir, startCluster }) => {
    const daemons = startCluster({ byTests: true });
    const { watcher } = await testProcess(tmp, dir, { SCOUT_SUITE_PID: "1" });
    assert.equal(watcher, false);
    await new Promise((r) => setTimeout(r, 1_500)); // what a watcher would have needed
    assert.equal(registrations(dir).length, 1, "its registration waits for the wrapper");
    assert.deepEqual(daemons.running(), [true, true, true]);
  }));
