/**
 * Workflow files the deploy tests write into their temp dirs, stand-in SLURM
 * commands, and a `workflow task` run against them.
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CliResult, runMain } from "../support/cli.ts";
import { env } from "./cli_support.ts";

/**
 * `Fan`: `top` depends on `n` `leaf` jobs (input `i`); each leaf appends
 * "<task> <i> <start ms> <end ms> <pid>" to `$FAN_LOG` and spins `$FAN_SPIN_MS`
 * of CPU; `bad` leaves (`$FAN_BAD` = i) throw.
 *
 * @param dir where to write `Fan/workflow.ts`
 * @param n leaves
 * @returns the workflow directory
 */
export function fanWorkflow(dir: string, n: number): string {
  mkdirSync(join(dir, "Fan"), { recursive: true });
  writeFileSync(
    join(dir, "Fan", "workflow.ts"),
    `import { appendFileSync } from "node:fs";
const spin = (ms: number) => { const t = Date.now(); let x = 0; while (Date.now() - t < ms) x++; return x; };
const log = (line: string) => { if (process.env.FAN_LOG) appendFileSync(process.env.FAN_LOG, line + "\\n"); };
export default (api: any) => api.workflow("Fan", { tasks: {
  leaf: { type: "integer", inputs: { i: api.input.integer({ default: 0 }) }, run: ({ i }: any) => {
    const start = Date.now();
    spin(Number(process.env.FAN_SPIN_MS ?? 0));
    if (String(i) === process.env.FAN_BAD) throw api.fail("Leaf " + i + " is bad");
    log("leaf " + i + " " + start + " " + Date.now() + " " + process.pid);
    return i * 2;
  } },
  top: { type: "integer", inputs: { n: api.input.integer({ default: ${n} }) },
    deps: [{ task: "leaf", resolve: (_id: any, o: any) => Array.from({ length: o.n }, (_, i) => ({ i: i + 1 })) }],
    run: async (_i: any, job: any) => {
      let sum = 0;
      for (const d of job.dependencies) sum += Number(await job.load(d));
      log("top 0 0 0 " + process.pid);
      return sum;
    } },
} });
`,
  );
  return join(dir, "Fan");
}

/**
 * Stand-ins for SLURM's `sbatch` and `squeue` (no SLURM runs): `sbatch`
 * answers ids 101, 102… (the last in `<dir>/sbatch.count`, one line per call
 * appended to `<dir>/sbatch.calls`), first writing `$SB_STDERR` (when set) to
 * the batch directory's `std.err` as a batch job's log, and sleeping
 * `$SB_SLEEP` seconds (when set) after taking its id; from its `$SB_FAIL_AT`th
 * call on (when set) it fails, printing `$SB_FAIL_STDERR` (`\n` for line
 * breaks) on stderr; with `$SB_RUN` set it runs the script in the background
 * (its output to `std.out`/`std.err`; no dependency is waited for) as SLURM
 * would; `squeue` (each call's arguments appended to `$SQ_LOG`, when set) reports every
 * id asked for in state `$SQ_STATE` (default `COMPLETED`; `FILES`: `RUNNING`
 * until the script wrote `exit.status`, then `COMPLETED` or `FAILED`; `GONE`: none, as
 * squeue answers for an id it forgot) with reason
 * `$SQ_REASON` (default `None`), or, with `$SQ_FAIL` set, fails as squeue
 * does when its controller is down.
 *
 * @param dir a directory of the test's own
 * @returns the directory of the stand-ins, to put first on PATH
 */
export function standInSlurm(dir: string): string {
  const bin = join(dir, "bin");
  mkdirSync(bin, { recursive: true });
  const count = join(dir, "sbatch.count");
  writeFileSync(
    join(bin, "sbatch"),
    `#!/bin/sh
exec 9>>${join(dir, "sbatch.lock")}; flock 9
n=$(cat ${count} 2>/dev/null || echo 100); n=$((n+1)); echo $n > ${count}
flock -u 9
if [ -n "$SB_FAIL_AT" ] && [ $((n - 100)) -ge "$SB_FAIL_AT" ]; then printf '%b\\n' "$SB_FAIL_STDERR" >&2; exit 1; fi
echo "$*" >> ${join(dir, "sbatch.calls")}
for a; do last="$a"; done
if [ -n "$SB_STDERR" ]; then printf '%s\n' "$SB_STDERR" > "$(dirname "$last")/std.err"; fi
if [ -n "$SB_SLEEP" ]; then sleep "$SB_SLEEP"; fi
echo "$n $(dirname "$last")" >> ${join(dir, "sbatch.map")}
if [ -n "$SB_RUN" ]; then d="$(dirname "$last")"; (bash "$last" > "$d/std.out" 2> "$d/std.err" &); fi
echo $n
`,
  );
  writeFileSync(
    join(bin, "squeue"),
    '#!/bin/sh\nif [ -n "$SQ_LOG" ]; then echo "$*" >> "$SQ_LOG"; fi\n' +
      'if [ -n "$SQ_FAIL" ]; then echo "slurm_load_jobs error: Unable to contact slurm ' +
      'controller (connect failure)" >&2; exit 1; fi\n' +
      'if [ "$SQ_STATE" = GONE ]; then echo "slurm_load_jobs error: Invalid job id specified" >&2; ' +
      "exit 1; fi\n" +
      'for a; do ids="$a"; done\necho "$ids" | tr , "\\n" | while read i; do ' +
      'state="${SQ_STATE:-COMPLETED}"; if [ "$state" = FILES ]; then ' +
      `d=$(awk -v i="$i" '$1 == i { print $2 }' ${join(dir, "sbatch.map")}); ` +
      'if [ ! -f "$d/exit.status" ]; then state=RUNNING; ' +
      'elif [ "$(cat "$d/exit.status")" = 0 ]; then state=COMPLETED; else state=FAILED; fi; fi; ' +
      'echo "$i|$state|${SQ_REASON:-None}"; done\n',
  );
  chmodSync(join(bin, "sbatch"), 0o755);
  chmodSync(join(bin, "squeue"), 0o755);
  return bin;
}

/**
 * Runs `scout-ai workflow task …args` in process in `home` (its Scout home
 * and cwd) with the stand-ins of {@link standInSlurm} first on PATH and
 * `extra` (the stand-ins' settings) in its environment.
 */
export function slurmTask(
  home: string,
  args: string[],
  extra: Record<string, string> = {},
): Promise<CliResult> {
  return runMain(["workflow", "task", ...args], {
    cwd: home,
    env: { ...env(home), PATH: `${standInSlurm(home)}:${process.env.PATH}`, ...extra },
  });
}
