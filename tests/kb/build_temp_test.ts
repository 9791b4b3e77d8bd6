/**
 * A `kb query` killed (SIGKILL) while it builds an index leaves its temp file
 * `<db>.idx.<pid>@<host>.<ms>.tmp`; the next build sweeps the temp files of
 * builders that are dead on this host and keeps those of live ones (R76-15).
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { registerDatabase } from "../../src/kb/resolve.ts";
import { ROOT, runScout, SCOUT_SOURCE_ARGS, tempDir } from "../support/cli.ts";
import { generateTsv } from "./generate.ts";

Deno.test("temp files of index builds killed with -9 are swept by the next build; a live builder's are kept", async () => {
  await using d = await tempDir();
  const tsv = join(d.path, "big.tsv");
  generateTsv(tsv, 1_000_000, { seed: 3 });
  const kb = join(d.path, "kb");
  registerDatabase(kb, "big", tsv);
  const idxDir = join(kb, ".scout-ai-index");
  const child = new Deno.Command(Deno.execPath(), {
    args: [...SCOUT_SOURCE_ARGS, "kb", "query", kb, "big", "x"],
    cwd: ROOT,
    stdout: "null",
    stderr: "null",
  }).spawn();
  const temps = () =>
    existsSync(idxDir) ? readdirSync(idxDir).filter((f) => f.endsWith(".tmp")) : [];
  const deadline = Date.now() + 60_000;
  while (temps().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  child.kill("SIGKILL");
  await child.status;
  const left = temps();
  assert.equal(left.length, 1, "the killed build left its temp file");
  // a live builder's temp (pid 1 is alive), and one of another host: not this build's to remove
  const live = `big.idx.1@${hostname()}.${Date.now()}.tmp`;
  const remote = `big.idx.${child.pid}@elsewhere.example.${Date.now()}.tmp`;
  for (const f of [live, remote]) writeFileSync(join(idxDir, f), "");
  const r = await runScout(["kb", "query", kb, "big", "x"]);
  assert.equal(r.code, 0, r.stderr);
  // before: the killed build's temp file stayed forever
  assert.deepEqual(readdirSync(idxDir).sort(), ["big.idx", live, remote].sort());
});
