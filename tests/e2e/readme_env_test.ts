/**
 * The README's "Environment" section names every environment variable
 * scout-ai reads, and only those (R110-7: `ASK_ENDPOINT`, `SCOUT_JOBS_DIR`…
 * worked but were written nowhere a user looks). The variables read are
 * found in `src/` by the ways it reads them (`tests/support/env_names.ts`,
 * which `tests/cli/utf8_guard_test.ts` also holds to `READ_ENV`), plus those
 * read through a named constant. And the `--help` of the commands whose
 * defaults they change names them.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { READ_ENV } from "../../src/cli/utf8_guard.ts";
import { PROV_JIT_ENV } from "../../src/cli/respawn.ts";
import { IGNORED_SIGNALS_ENV } from "../../src/util/ignored_signals.ts";
import { ROOT, runMain, tempDir } from "../support/cli.ts";
import { namesReadInSrc } from "../support/env_names.ts";

/** Set for the code a workflow or agent file brings (Bun's bundler), never read by scout-ai. */
const NOT_READ = new Set(["NODE_ENV", "BUN_ENV"]);

/** The text of the README's `## Environment` section. */
function environmentSection(): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const m = /^## Environment\n([^]*?)(?=^## )/m.exec(readme);
  assert.ok(m !== null, "README.md has a ## Environment section");
  return m[1]!;
}

/** Every variable scout-ai reads. */
function variablesRead(): Set<string> {
  const names = new Set([...namesReadInSrc(), ...READ_ENV, IGNORED_SIGNALS_ENV, PROV_JIT_ENV]);
  for (const n of NOT_READ) names.delete(n);
  return names;
}

Deno.test("the README's Environment section names every variable scout-ai reads, and no other", () => {
  const section = environmentSection();
  const read = variablesRead();
  assert.ok(read.has("SCOUT_JOBS_DIR") && read.has("ASK_ENDPOINT") && read.has("NO_COLOR"));
  const named = new Set(
    [...section.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Za-z0-9]+)*)`/g)].map((m) => m[1]!),
  );
  const missing = [...read].filter((n) => !named.has(n)).sort();
  assert.deepEqual(missing, [], `not in the README's Environment section: ${missing.join(", ")}`);
  const stale = [...named].filter((n) => !read.has(n)).sort();
  assert.deepEqual(
    stale,
    [],
    `named in the Environment section, read nowhere: ${stale.join(", ")}`,
  );
});

Deno.test("the help of llm ask, agent ask, workflow task and workflow mcp names the variables behind their defaults", async () => {
  await using t = await tempDir();
  const o = { env: { SCOUT_HOME: join(t.path, "home") }, cwd: t.path };
  const help = async (...path: string[]) => {
    const r = await runMain([...path, "--help"], o);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };
  for (const cmd of [["llm", "ask"], ["agent", "ask"]]) {
    const text = await help(...cmd);
    for (const v of ["ASK_ENDPOINT", "ASK_BACKEND", "MODEL", "ASK_PERSIST", "SCOUT_OFFLINE"]) {
      assert.match(text, new RegExp(`\\b${v}\\b`), `${cmd.join(" ")} --help names ${v}`);
    }
  }
  assert.match(await help("agent", "ask"), /\bSCOUT_AGENT_PATH\b/);
  const task = (await help("workflow", "task")).replace(/\s+/g, " ");
  assert.match(task, /--jobs-dir <dir> jobs directory \(default: \$SCOUT_JOBS_DIR, else /);
  assert.match(task, /--batch-dir <dir> slurm: batch directories \(default: \$SCOUT_BATCH_DIR, /);
  const mcp = (await help("workflow", "mcp")).replace(/\s+/g, " ");
  assert.match(mcp, /--jobs-dir <dir> jobs directory \(default: \$SCOUT_JOBS_DIR, else /);
});
