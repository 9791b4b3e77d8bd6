/**
 * `workflow batch list|tail|clean --batch-dir DIR` with DIR missing (R137-7):
 * a typo listed no batches, tailed none and cleaned none, exit 0, where the
 * same typo in `--jobs-dir` is an error. Now an error naming it, exit 1; the
 * default batch directory missing (nobody typed it) still holds no batches.
 * Stand-in SLURM commands on PATH; nothing here asks them.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { env } from "./cli_support.ts";
import { standInSlurm } from "./deploy_fixtures.ts";

const COMMANDS = [
  ["list"],
  ["list", "--json"],
  ["tail"],
  ["tail", "SLURM_x"],
  ["clean", "--dry-run"],
  ["clean", "--json"],
];

Deno.test("workflow batch: a --batch-dir given that is missing or no directory is an error naming it (R137-7)", async () => {
  await using d = await tempDir();
  const o = {
    cwd: d.path,
    env: { ...env(d.path), PATH: `${standInSlurm(d.path)}:${process.env.PATH}` },
  };
  writeFileSync(join(d.path, "afile"), "x\n");
  const cases: [string, RegExp][] = [
    ["nosuch", /^scout-ai: Cannot use --batch-dir "nosuch": no such directory\n$/],
    ["afile", /^scout-ai: Cannot use --batch-dir "afile": it is not a directory\n$/],
  ];
  for (const command of COMMANDS) {
    for (const [dir, message] of cases) {
      const args = ["workflow", "batch", ...command, "--batch-dir", dir];
      const r = await runMain(args, o);
      assert.equal(r.code, 1, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, message, args.join(" "));
      if (!command.includes("--json")) assert.equal(r.stdout, "", args.join(" "));
      else assert.equal(JSON.parse(r.stdout).status, "error");
    }
  }
});

Deno.test("workflow batch: the default batch directory missing, or an empty --batch-dir, holds no batches (R137-7)", async () => {
  await using d = await tempDir();
  const o = {
    cwd: d.path,
    env: { ...env(d.path), PATH: `${standInSlurm(d.path)}:${process.env.PATH}` },
  };
  mkdirSync(join(d.path, "empty"));
  for (const extra of [[], ["--batch-dir", "empty"]]) {
    const list = await runMain(["workflow", "batch", "list", "--json", ...extra], o);
    assert.equal(list.code, 0, list.stderr);
    assert.deepEqual(JSON.parse(list.stdout).batches, []);
    const clean = await runMain(["workflow", "batch", "clean", "--json", ...extra], o);
    assert.equal(clean.code, 0, clean.stderr);
    assert.deepEqual(JSON.parse(clean.stdout).removed, []);
    const tail = await runMain(["workflow", "batch", "tail", ...extra], o);
    assert.equal(tail.code, 0, tail.stderr);
    assert.match(tail.stderr, /^No batch directories in /);
  }
});
