/**
 * `kb list` says a database is fine only when every row of its TSV file is
 * (R76-13): a short row on line 4 makes it unreadable, naming file and line,
 * and the exit code 1, as its help says.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runScout, tempDir } from "../support/cli.ts";

Deno.test("kb list: a malformed row makes the database unreadable (file:line) and exit 1", async () => {
  await using d = await tempDir();
  const kb = join(d.path, "kb");
  const good = join(d.path, "good.tsv");
  const bad = join(d.path, "bad.tsv");
  writeFileSync(good, "#K\tT\tW\na\tb\t1\n");
  writeFileSync(bad, "#K\tT\tW\na\tb\t1\nc\td\t2\nshort\trow\n");
  for (const [name, file] of [["good", good], ["bad", bad]]) {
    const r = await runScout(["kb", "register", kb, name!, file!]);
    assert.equal(r.code, 0, r.stderr);
  }
  const l = await runScout(["kb", "list", kb]);
  // before: both listed as fine, exit 0
  assert.equal(l.code, 1, l.stdout);
  assert.equal(
    l.stdout,
    `good  K -> T  [W]\n` +
      `bad   unreadable: Row has 2 columns, the header has 3 in "${bad}" (${bad}:4)\n`,
  );
  const j = JSON.parse((await runScout(["kb", "list", kb, "--json"])).stdout);
  assert.deepEqual(j.databases.map((x: { error: string | null }) => x.error !== null), [
    false,
    true,
  ]);
});
