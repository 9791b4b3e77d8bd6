/**
 * `deno task test`'s wrapper (tests/support/suite.ts) builds the binary once
 * for all test files and names it in `SCOUT_TEST_BINARY` (build_binary.ts):
 * the test files see the built binary there, and it is gone after the run; a
 * wrapper run inside another's (a test of the wrapper) uses the outer one's
 * binary and leaves it in place.
 */
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DENO, ROOT, tempDir } from "../support/cli.ts";
import { SHARED_BINARY_VAR } from "../support/build_binary.ts";

const SUITE = join(ROOT, "tests", "support", "suite.ts");

/** Runs the wrapper on a test file that records what `SCOUT_TEST_BINARY` names. */
async function suiteRun(dir: string, binary: string) {
  const seen = join(dir, "seen.json");
  const file = join(dir, "binary_test.ts");
  writeFileSync(
    file,
    `Deno.test("binary", async () => {
  const path = Deno.env.get(${JSON.stringify(SHARED_BINARY_VAR)}) ?? null;
  let version = null;
  if (path !== null && Deno.statSync(path).size > 1_000_000) {
    const out = await new Deno.Command(path, { args: ["--version"] }).output();
    version = new TextDecoder().decode(out.stdout).trim();
  }
  Deno.writeTextFileSync(${JSON.stringify(seen)}, JSON.stringify({ path, version }));
});
`,
  );
  const out = await new Deno.Command(DENO, {
    args: ["run", "-q", "-A", SUITE, "test", "-q", "-A", "--no-config", file],
    cwd: dir,
    // not the real cluster's registry
    env: { SCOUT_SLURM_DIR: join(dir, "slurm"), [SHARED_BINARY_VAR]: binary },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return JSON.parse(Deno.readTextFileSync(seen)) as { path: string | null; version: string };
}

Deno.test("suite binary: built once by the wrapper, named to the test files, removed after", async () => {
  await using t = await tempDir();
  const seen = await suiteRun(t.path, "");
  assert.ok(seen.path !== null, "no SCOUT_TEST_BINARY in the test file's environment");
  assert.match(seen.path, /scout-suite-bin-[^/]+\/scout-ai$/);
  const version = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json"))).version;
  assert.match(seen.version, new RegExp(version.replaceAll(".", "\\.")));
  assert.equal(existsSync(seen.path), false, "the suite's binary is left behind");
});

Deno.test("suite binary: a wrapper inside another uses the outer one's binary and keeps it", async () => {
  await using t = await tempDir();
  const outer = join(t.path, "outer-scout-ai");
  writeFileSync(outer, "#!/bin/sh\n", { mode: 0o755 });
  const seen = await suiteRun(t.path, outer);
  assert.equal(seen.path, outer);
  assert.ok(existsSync(outer), "the outer suite's binary was removed");
});
