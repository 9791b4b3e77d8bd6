/**
 * The text views of `llm prov` say when the walk is incomplete (the JSON's
 * `complete: false`): the tree, `--flow` and `--by` end with a line that
 * counts what could not be followed or read, even with the warnings hidden.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runMain } from "../support/cli.ts";
import { tmp, write } from "./support.ts";

const SOCIETY = "fixtures/provenance/society";
const NOTE = "(incomplete: 2 unresolved references — see the warnings)\n";

Deno.test("llm prov without the society's jobs: tree, --flow and --by end with the incomplete line", async () => {
  // the root's job= marker and its receipt's job= both name jobs in the missing store
  const args = ["--log", "6", "llm", "prov", `${SOCIETY}/plan.chat`];
  for (const view of [[], ["--flow"], ["--flow", "-c"], ["--by", "model"]]) {
    const r = await runMain([...args, ...view], { cwd: ROOT, env: { NO_COLOR: "1" } });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.endsWith(NOTE), `${view.join(" ")}:\n${r.stdout}`);
    assert.equal(r.stderr, "", "--log 6 hides the warnings, not the line");
  }
  const json = await runMain([...args, "--json"], { cwd: ROOT });
  assert.equal(JSON.parse(json.stdout).complete, false);
  assert.doesNotMatch(json.stdout, /incomplete:/);
  // with the store, complete: no line
  const whole = await runMain([...args.slice(2), "-J", `${SOCIETY}/jobs`], { cwd: ROOT });
  assert.doesNotMatch(whole.stdout, /incomplete/);
});

Deno.test("llm prov: a missing dependency and an unreadable .info are counted apart", async () => {
  await using d = await tmp();
  const job = join(d.path, "jobs/Wf/t/J");
  const dep = join(d.path, "jobs/Wf/t/K");
  mkdirSync(`${job}.files/log`, { recursive: true });
  write(
    `${job}.info`,
    JSON.stringify({ workflow: "Wf", task_name: "t", dependencies: ["/gone/x", dep] }),
  );
  write(`${job}.files/log/agent.chat`, "user: q\n\nmeta: pt=1 ct=1 tt=2 inference_id=a\n");
  write(`${dep}.info`, "{not json");
  const r = await runMain(["--log", "6", "llm", "prov", job], { cwd: d.path });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(
    r.stdout.endsWith(
      "(incomplete: 1 unresolved reference, 1 unreadable file — see the warnings)\n",
    ),
    r.stdout,
  );
});
