/**
 * The `--by` table writes names as the tree does — cut in the middle at 60
 * characters — and puts a `?` cost at the right edge of the cost column,
 * under its header, while the dollar amounts line up on their decimal points.
 * (Token counts keep `provenance.md`'s two forms: the tree's `1.7K`, §10.3,
 * and the flat views' `1.7k`, §10.4.)
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runMain } from "../support/cli.ts";
import { mkJob, tmp, write } from "./support.ts";

const LONG = "A".repeat(40) + "B".repeat(50);

/** One root inference priced, one not; a job whose society agent has a 90-character name. */
function store(dir: string): (...args: string[]) => Promise<string> {
  const home = join(dir, "home");
  write(join(home, "etc", "prices.yaml"), "gpt-5-nano:\n  input: 0.05\n  output: 0.40\n");
  const job = "W/ask/Default_b4bd4948975eaeee0510916bd4f0e87a";
  mkJob(join(dir, "jobs", job), null, {
    [`society/${LONG}/default.chat`]:
      "user: go\n\nmeta: pt=1000 ct=500 tt=1500 inference_id=a1 model=other\n\nassistant: ok\n",
  }, { workflow: "W", task_name: "ask" });
  write(
    join(dir, "s.chat"),
    "user: x\n\nmeta: pt=10 ct=5 tt=15 inference_id=i1 model=gpt-5-nano\n\n" +
      `assistant: y\n\nmeta: job=${job}\n`,
  );
  return async (...args) => {
    const r = await runMain(["llm", "prov", "s.chat", "-J", "jobs", ...args], {
      cwd: dir,
      env: { SCOUT_HOME: home, NO_COLOR: "1" },
    });
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };
}

Deno.test("--by: long names are cut in the middle as in the tree; ? sits under the cost header", async () => {
  await using d = await tmp();
  const prov = store(d.path);
  const short = "A".repeat(29) + "…" + "B".repeat(30);
  assert.ok((await prov()).includes(`${"A".repeat(29)}…${"B".repeat(20)} · default`));
  const table = (await prov("--by", "agent")).split("\n");
  assert.deepEqual(table.slice(0, 3), [
    `agent${" ".repeat(55)}  n    pt   ct    tt  cct  cwt  rt        cost`,
    `${short}  1  1000  500  1500    0    0   0           ?`,
    `(root)${" ".repeat(54)}  1    10    5    15    0    0   0  $0.0000025`,
  ]);
  const byModel = (await prov("--by", "model")).split("\n");
  const right = byModel[0]!.length;
  for (const row of byModel.slice(1, 3)) assert.equal(row.length, right, row);
});
