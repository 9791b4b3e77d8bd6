/**
 * R166-4: `llm prov --plot`'s temporary directory (the DOT text `dot` reads,
 * the drawing it writes) is this process's, removed at exit — also when a
 * signal ends the command while `dot` runs, which left it behind before.
 */
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnScout, tempDir } from "../support/cli.ts";

Deno.test("llm prov --plot: a SIGTERM while dot runs leaves no temporary directory", async () => {
  await using dir = await tempDir();
  const bin = join(dir.path, "bin");
  const tmp = join(dir.path, "tmp");
  mkdirSync(bin);
  mkdirSync(tmp);
  // a slow dot: long enough for the signal to come while it runs
  writeFileSync(join(bin, "dot"), '#!/bin/sh\nsleep 1\necho "<svg/>" > "$4"\n');
  chmodSync(join(bin, "dot"), 0o755);
  const child = spawnScout(
    ["llm", "prov", "fixtures/provenance/society/plan.chat", "--plot", join(dir.path, "p.svg")],
    {
      env: {
        SCOUT_HOME: join(dir.path, "home"),
        TMPDIR: tmp,
        PATH: `${bin}:${Deno.env.get("PATH")}`,
      },
    },
  );
  const graph = () => readdirSync(tmp).some((d) => existsSync(join(tmp, d, "graph.dot")));
  for (let i = 0; i < 300 && !graph(); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(graph(), "dot was never run");
  child.kill("SIGTERM");
  const out = await child.output();
  assert.equal(out.code, 143, new TextDecoder().decode(out.stderr));
  assert.deepEqual(readdirSync(tmp), []);
});
