/**
 * `workflow info` shortens a long input value in its text view (R147-2): an
 * agent job stores its chat whole in `provided_inputs` and `inputs`, and a
 * 50 MB chat was printed twice to the terminal. Its head is shown with its
 * size and where to get it all; `--json` (for scripts) keeps it whole.
 * In-process runs on a synthetic store (`tests/support/synthetic_store.ts`).
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { homeIn, runMain, tempDir } from "../support/cli.ts";
import { chatOf, writeSyntheticStore } from "../support/synthetic_store.ts";

Deno.test("workflow info shows a 1 MB input's head and size, --json all of it", async () => {
  await using d = await tempDir();
  const [job] = writeSyntheticStore({
    root: join(d.path, "jobs"),
    workflow: "Critic",
    task: "ask",
    jobs: 1,
    inputBytes: 1_000_000,
  });
  const o = { cwd: d.path, env: { ...homeIn(d.path), HOME: d.path, NO_COLOR: "1" } };
  const r = await runMain(["workflow", "info", job!], o);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stdout.length < 10_000, `${r.stdout.length} chars printed`);
  const chat = chatOf(1_000_000);
  for (const label of ["inputs     chat=", "provided   chat="]) {
    const at = r.stdout.indexOf(label);
    assert.ok(at >= 0, `no "${label}" row:\n${r.stdout}`);
    const shown = r.stdout.slice(at + label.length);
    assert.ok(shown.startsWith(chat.slice(0, 200)), shown.slice(0, 300));
    assert.match(shown, /^[^…]*… \(1000000 bytes; --json for all\)\n/);
  }
  assert.ok(r.stdout.includes("\n  status     done\n"), "the other rows as before");

  const json = await runMain(["workflow", "info", job!, "--json"], o);
  assert.equal(json.code, 0, json.stderr);
  const info = JSON.parse(json.stdout).info;
  assert.equal(info.inputs[0], chat);
  assert.equal(info.provided_inputs.chat, chat);
});

Deno.test("workflow info shows short values whole, and counts a long one's bytes in UTF-8", async () => {
  await using d = await tempDir();
  const [job] = writeSyntheticStore({
    root: join(d.path, "jobs"),
    workflow: "Critic",
    task: "ask",
    jobs: 1,
    inputBytes: 100,
  });
  const long = "é".repeat(1_000); // 2,000 bytes
  writeFileSync(
    job + ".info",
    JSON.stringify({
      status: "done",
      inputs: ["short one", long],
      input_names: ["a", "b"],
      provided_inputs: { a: "short one" },
      notes: long, // a field of its own (set_info)
    }),
  );
  const o = { cwd: d.path, env: { ...homeIn(d.path), HOME: d.path, NO_COLOR: "1" } };
  const r = await runMain(["workflow", "info", job!], o);
  assert.equal(r.code, 0, r.stderr);
  const head = "é".repeat(200) + "… (2000 bytes; --json for all)\n";
  assert.ok(r.stdout.includes("\n  inputs     a=short one  b=" + head), r.stdout);
  assert.ok(r.stdout.includes("\n  provided   a=short one\n"), r.stdout);
  assert.ok(r.stdout.includes("\n  notes      " + head), r.stdout);
});
