/**
 * A synthetic job store for scale tests (R147): `<root>/<Workflow>/<task>/`
 * filled with done jobs shaped like the society fixture's
 * (`fixtures/provenance/society/jobs`): a result, its `.info` and an empty
 * `.files/`. An agent `ask` job stores its chat in `provided_inputs` and
 * `inputs` (Ruby parity), so `inputBytes` makes an info that large twice
 * over. Also run by hand to measure a big store:
 * `tools/deno run -A tests/support/synthetic_store.ts ROOT WF TASK JOBS INPUT_BYTES [DAYS_OLD]`.
 *
 * @module
 */
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** What {@link writeSyntheticStore} makes. */
export interface SyntheticStore {
  /** The jobs root. */
  root: string;
  /** Workflow name (its directory). */
  workflow: string;
  /** Task name. */
  task: string;
  /** How many jobs. */
  jobs: number;
  /** Length of the chat input each stores (twice: `provided_inputs` and `inputs`). */
  inputBytes: number;
  /** How long ago the jobs were last used, in days (default 0: now). */
  daysOld?: number;
  /** Paths stored as `dependencies` of every job (default none). */
  dependencies?: string[];
}

/** A chat of `n` characters: a system and a user block, the user's text repeated to fill. */
export function chatOf(n: number): string {
  const head = "\nsystem:\n\nYou are the Critic.\n\nuser:\n\n";
  const line = "Plan: bake a crusty loaf at 230 C, then a sponge at 175 C. Risks?\n";
  return (head + line.repeat(Math.ceil(n / line.length))).slice(0, n);
}

/**
 * Writes the jobs of {@link SyntheticStore} and returns their result paths
 * (`Default_<n>`, sorted as the store lists them).
 *
 * @param s what to make
 * @returns the jobs' result paths
 */
export function writeSyntheticStore(s: SyntheticStore): string[] {
  const dir = join(s.root, s.workflow, s.task);
  mkdirSync(dir, { recursive: true });
  const chat = chatOf(s.inputBytes);
  const when = new Date(Date.now() - (s.daysOld ?? 0) * 86_400_000);
  const t = "2026-12-06 04:21:45 +0000";
  const paths: string[] = [];
  for (let i = 0; i < s.jobs; i++) {
    const path = join(dir, `Default_${String(i).padStart(8, "0")}`);
    const info = {
      status: "done",
      issued: t,
      pid: 9444,
      pid_hostname: "vm",
      task_name: s.task,
      workflow: s.workflow,
      provided_inputs: { chat },
      non_default_inputs: ["chat"],
      inputs: [chat],
      input_names: ["chat"],
      type: "chat",
      dependencies: s.dependencies ?? [],
      start: t,
      time_elapsed: 0.02,
      total_time_elapsed: 0.02,
      end: t,
    };
    writeFileSync(path, "assistant:\n\nThe oven.\n");
    writeFileSync(path + ".info", JSON.stringify(info));
    mkdirSync(path + ".files");
    for (const f of [path, path + ".info"]) utimesSync(f, when, when);
    paths.push(path);
  }
  return paths;
}

if (import.meta.main) {
  const [root, workflow, task, jobs, inputBytes, daysOld] = Deno.args;
  if (root === undefined || workflow === undefined || task === undefined) {
    console.error("usage: synthetic_store.ts ROOT WF TASK JOBS INPUT_BYTES [DAYS_OLD]");
    Deno.exit(2);
  }
  const n = writeSyntheticStore({
    root,
    workflow,
    task,
    jobs: Number(jobs ?? 1),
    inputBytes: Number(inputBytes ?? 0),
    daysOld: Number(daysOld ?? 0),
  }).length;
  console.log(`${n} jobs under ${join(root, workflow, task)}`);
}
