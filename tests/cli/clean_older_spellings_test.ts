/**
 * The cleaning commands' options next to Ruby Scout's (R124-4..6), through
 * the real CLI in a subprocess: an age Scout reads as another (`12 h` is 12
 * days there, `1.5d` 6 days) is a usage error saying why, in `system clean`
 * and `llm cache clean`; `1d12h` (this port's) and `1d 12h` (both) are
 * read; Scout's `-d` is refused as `--dirty` is; both helps fit 80 columns.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runScout, tempDir } from "../support/cli.ts";
import { ageJob, present, storeOpts } from "../support/store_ages.ts";

/** A done job of the store under `d`, `days` old. */
function oldJob(d: string, days: number): string {
  const path = join(d, "scout", "var", "jobs", "Wf", "t", "J");
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, "data\n");
  writeFileSync(path + ".info", JSON.stringify({ status: "done" }));
  ageJob(path, days);
  return path;
}

Deno.test("--older: a unit apart from its number or a decimal amount is refused, saying how Scout reads it (R124-4)", async () => {
  await using d = await tempDir();
  const job = oldJob(d.path, 2); // 12 h would take it; Scout's 12 days would not
  const refused: [string, RegExp][] = [
    [
      "12 h",
      /"12 h" is not an age: Scout reads a unit apart from its number as days \("12 h" is 12 days there\): write 12h/,
    ],
    [
      "1.5d",
      /"1\.5d" is not an age: no decimal amounts: Scout reads "1\.5" as 1 and 5, added; write whole amounts/,
    ],
  ];
  for (const cmd of [["system", "clean", "Wf"], ["llm", "cache", "clean"]]) {
    for (const [age, message] of refused) {
      const r = await runScout([...cmd, "--older", age], storeOpts(d.path));
      assert.equal(r.code, 2, `${cmd.join(" ")} ${age}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.match(r.stderr, /the unit right after its number/);
    }
  }
  assert.ok(present(job), "nothing removed");
  for (const age of ["1d12h", "1d 12h"]) {
    const r = await runScout(
      ["system", "clean", "Wf", "--older", age, "--dry-run", "--json"],
      storeOpts(d.path),
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).olderSeconds, 36 * 3_600, age);
  }
  const cache = await runScout([
    "llm",
    "cache",
    "clean",
    "--older",
    "1d 12h",
    "--dry-run",
    "--json",
  ], {
    ...storeOpts(d.path),
  });
  assert.equal(cache.code, 0, cache.stderr);
  assert.equal(JSON.parse(cache.stdout).olderSeconds, 36 * 3_600);
});

Deno.test("system clean -d is refused as --dirty is (R124-5)", async () => {
  await using d = await tempDir();
  for (const flag of ["-d", "--dirty"]) {
    const r = await runScout(["system", "clean", "all", flag], storeOpts(d.path));
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /^scout-ai: --dirty is not supported: recompute outdated jobs with 'workflow task --recompute'/,
    );
  }
});

Deno.test("system clean --help and llm cache clean --help fit 80 columns (R124-6)", async () => {
  for (const cmd of [["system", "clean"], ["llm", "cache", "clean"]]) {
    const r = await runScout([...cmd, "--help"], { env: { NO_COLOR: "1" } });
    assert.equal(r.code, 0, r.stderr);
    for (const line of r.stdout.split("\n")) {
      if (line.startsWith("  scout-ai ")) continue; // an example runs as printed
      assert.ok(line.length <= 80, `${cmd.join(" ")}: ${line.length}: ${line}`);
    }
  }
});
