/**
 * A knowledge base queried on a full disk (R92-2): its index cannot be built
 * in the knowledge base, nor in the cache, nor in the temporary directory
 * (R92-7); the error names each place and why instead of a bare `Cannot
 * write: no space left on device`, and no temp file is left.
 */
import assert from "node:assert/strict";
import { cpSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runMain } from "../support/cli.ts";
import { fullDisk } from "../support/full_disk.ts";

const FAMILY = join(ROOT, "fixtures", "kb", "family");

Deno.test({
  name: "kb query on a full disk names the index it cannot write (R92-2)",
  fn: async () => {
    await using disk = await fullDisk((p) => {
      cpSync(FAMILY, join(p, "kb"), { recursive: true, filter: (s) => !s.includes("-index") });
      mkdirSync(join(p, "home", "var", "cache", "kb"), { recursive: true });
      mkdirSync(join(p, "tmp"));
    });
    const kb = join(disk.path, "kb");
    const cache = join(disk.path, "home", "var", "cache", "kb");
    const tmp = join(disk.path, "tmp");
    const env = { SCOUT_HOME: join(disk.path, "home"), TMPDIR: tmp };
    const r = await runMain(["kb", "query", kb, "parents", "Ada"], { env });
    assert.equal(r.code, 1, r.stderr);
    const full = "no space left on device";
    assert.equal(
      r.stderr,
      `scout-ai: Cannot write an index of "${kb}/parents" anywhere: "${kb}": ${full}; ` +
        `"${cache}": ${full}; temporary directory "${tmp}": ${full}\n`,
    );
    const left = (dir: string) => readdirSync(dir, { recursive: true }).map(String);
    assert.deepEqual(left(disk.path).filter((n) => n.endsWith(".tmp")), []);
    disk.free();
    const ok = await runMain(["kb", "query", kb, "parents", "Ada"], { env });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout, "Ada~Bruno\tfather\nAda~Carla\tmother\n");
  },
});
