/**
 * `tools/slurm-up` marks whose cluster it started (`SCOUT_SLURM_OWNER` →
 * `<dir>/.owner`), and `tools/slurm-down` signals only the daemons it
 * recorded. The real scripts run with stand-ins for SLURM's programs first on
 * `PATH` (`munged`, `slurmctld`, `slurmd`: a `sleep` under the daemon's name;
 * `sinfo` says the node is idle), in a directory of the test's own.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { ROOT } from "../support/cli.ts";
import { DAEMONS, daemonStandIns } from "../support/slurm_stand_ins.ts";

/** Stand-ins for SLURM's programs, and the environment that puts them first. */
function fakeSlurm(tmp: string): Record<string, string> {
  const bin = join(tmp, "bin");
  const daemons = daemonStandIns(tmp);
  Deno.mkdirSync(bin, { recursive: true });
  const scripts: Record<string, string> = {
    // munged daemonizes and writes its pid file
    munged: `for a; do case "$a" in --pid-file=*) pf="\${a#--pid-file=}";; esac; done
setsid ${daemons}/munged 600 </dev/null >/dev/null 2>&1 & echo $! >"$pf"`,
    mungekey: `touch "$3"`,
    slurmctld: `exec ${daemons}/slurmctld 600`,
    slurmd: `exec ${daemons}/slurmd 600`,
    sinfo: "echo idle",
    sbatch: "exit 0",
  };
  for (const [name, body] of Object.entries(scripts)) {
    Deno.writeTextFileSync(join(bin, name), `#!/usr/bin/env bash\n${body}\n`, { mode: 0o755 });
  }
  return { PATH: `${bin}:${Deno.env.get("PATH")}` };
}

function tool(name: string, dir: string, env: Record<string, string>) {
  return new Deno.Command(join(ROOT, "tools", name), {
    args: [dir],
    env,
    stdout: "piped",
    stderr: "piped",
  }).outputSync();
}

function pids(dir: string): number[] {
  return DAEMONS.map((d) => Number(readFileSync(join(dir, `${d}.pid`), "utf8").trim()));
}

/** Whether the process exists (a zombie too: `/proc` needs -A, which the tests do not have). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether it is gone, reaped included, within 10 s. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 500 && running(pid); i++) await new Promise((r) => setTimeout(r, 20));
  return !running(pid);
}

async function withTmp(body: (tmp: string, env: Record<string, string>) => Promise<void>) {
  const tmp = Deno.makeTempDirSync({ prefix: "scout-slurm-tools-" });
  try {
    await body(tmp, fakeSlurm(tmp));
  } finally {
    for (const dir of [join(tmp, "slurm")]) {
      for (const d of DAEMONS) {
        try {
          Deno.kill(Number(readFileSync(join(dir, `${d}.pid`), "utf8")), "SIGKILL");
        } catch { /* not there */ }
      }
    }
    Deno.removeSync(tmp, { recursive: true });
  }
}

Deno.test("slurm-up: a start from nothing is marked with SCOUT_SLURM_OWNER; without it, an old mark goes", () =>
  withTmp(async (tmp, env) => {
    const dir = join(tmp, "slurm");
    const up = tool("slurm-up", dir, { ...env, SCOUT_SLURM_OWNER: "tests" });
    assert.equal(up.code, 0, new TextDecoder().decode(up.stderr));
    assert.equal(readFileSync(join(dir, ".owner"), "utf8"), "tests\n");
    const first = pids(dir);
    assert(first.every(running));
    assert.equal(tool("slurm-down", dir, env).code, 0);
    for (const pid of first) assert(await gone(pid), `${pid} stopped`);
    assert(!existsSync(dir));
    // a mark left behind (a stop with --keep, or daemons that died), then a start by hand
    Deno.mkdirSync(dir, { recursive: true });
    Deno.writeTextFileSync(join(dir, ".owner"), "tests\n");
    assert.equal(tool("slurm-up", dir, env).code, 0);
    assert(!existsSync(join(dir, ".owner")), "a cluster started by hand is nobody's to stop");
  }));

Deno.test("slurm-up: restarting one daemon of a cluster keeps its mark (a hand-started one stays unmarked)", () =>
  withTmp(async (tmp, env) => {
    const dir = join(tmp, "slurm");
    assert.equal(tool("slurm-up", dir, env).code, 0); // by hand
    const [, slurmd] = pids(dir);
    Deno.kill(slurmd!, "SIGKILL");
    assert(
      await gone(slurmd!),
      "reaped, not only dead: slurm-up asks `kill -0`, as `running` does",
    );
    const again = tool("slurm-up", dir, { ...env, SCOUT_SLURM_OWNER: "tests" }); // by the tests
    assert.equal(again.code, 0, new TextDecoder().decode(again.stderr));
    assert(running(pids(dir)[1]!), "slurmd was started again");
    assert(
      !existsSync(join(dir, ".owner")),
      "the tests restarted a daemon: the cluster is not theirs",
    );
  }));

Deno.test("slurm-down: a recorded pid that now belongs to another program is not signalled", () =>
  withTmp(async (tmp, env) => {
    const dir = join(tmp, "slurm");
    Deno.mkdirSync(dir, { recursive: true });
    const other = new Deno.Command("sleep", { args: ["600"] }).spawn(); // named sleep
    try {
      Deno.writeTextFileSync(join(dir, "munged.pid"), `${other.pid}\n`);
      const down = tool("slurm-down", dir, env);
      assert.equal(down.code, 0, new TextDecoder().decode(down.stderr));
      assert(running(other.pid), "the unrelated process runs on");
      assert(!existsSync(dir), "its stale pid file went with the directory");
    } finally {
      other.kill("SIGKILL");
      await other.status;
    }
  }));
