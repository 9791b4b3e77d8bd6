/**
 * A batch job's script (`command.batch`) outlives the program it runs: a
 * SIGTERM or SIGINT sent to the script's shell alone (as SLURM sends it,
 * to the shell and the program, or `--signal=B:TERM` to the shell only) is
 * passed on, the job is recorded `aborted`, `exit.status` says 128 + the
 * signal, and no process of the job is left; `workflow batch list` names the
 * signal, also once SLURM forgot the job (R109-6).
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runMain, tempDir } from "../support/cli.ts";
import { pidAlive } from "../../src/util/process.ts";
import { env, readInfo } from "./cli_support.ts";
import { slurmTask } from "./deploy_fixtures.ts";
import { waitUntil } from "../support/wait.ts";

const SLOW = join(ROOT, "fixtures", "workflows", "Slow");

for (const [signal, code] of [["SIGTERM", 143], ["SIGINT", 130]] as const) {
  Deno.test(`slurm: ${signal} to command.batch's shell is passed on; exit.status says ${code}; nothing is left running (R109-6)`, async () => {
    await using d = await tempDir();
    const r = await slurmTask(
      d.path,
      [SLOW, "nap", "--seconds", "30", "--deploy", "slurm", "--json"],
      { SQ_STATE: "PENDING" },
    );
    assert.equal(r.code, 0, r.stderr);
    const [unit] = JSON.parse(r.stdout).units;
    const shell = new Deno.Command("bash", {
      args: [join(unit.batchDir, "command.batch")],
      stdout: "null",
      stderr: "piped",
    }).spawn();
    let pid = 0;
    try {
      await waitUntil("the job to start napping", () => readInfo(unit.path)?.status === "napping");
      pid = readInfo(unit.path)!.pid as number;
      shell.kill(signal);
      const end = await shell.output();
      assert.equal(end.code, code, new TextDecoder().decode(end.stderr));
      assert.equal(readFileSync(join(unit.batchDir, "exit.status"), "utf8"), `${code}\n`);
      assert.equal(readInfo(unit.path)?.status, "aborted");
      assert.ok(!existsSync(unit.path));
      await waitUntil(`the job's process ${pid} to end`, () => !pidAlive(pid), 5_000);
      // batch list tells the signal from a failure, SLURM forgotten or not
      const notes: [string, string][] = [
        ["CANCELLED", "cancelled (scancel)"],
        ["TIMEOUT", "its time limit ran out"],
        ["GONE", `ended by ${signal} (exit ${code}: scancel, a time limit…)`],
      ];
      for (const [state, note] of notes) {
        const list = await runMain(["workflow", "batch", "list", "--json"], {
          env: {
            ...env(d.path),
            PATH: `${join(d.path, "bin")}:${process.env.PATH}`,
            SQ_STATE: state,
          },
        });
        assert.equal(list.code, 0, list.stderr);
        const [entry] = JSON.parse(list.stdout).batches;
        assert.deepEqual(
          [entry.exitStatus, entry.jobStatus, entry.note],
          [code, "aborted", note],
          state,
        );
      }
    } finally {
      if (pid !== 0 && pidAlive(pid)) Deno.kill(pid, "SIGKILL"); // left by a shell that died first
      try {
        shell.kill("SIGKILL");
      } catch { /* ended */ }
    }
  });
}
