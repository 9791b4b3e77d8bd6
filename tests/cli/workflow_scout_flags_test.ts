/**
 * Scout's own spellings of `workflow task`'s flags (scout-gear's
 * `scout_commands/workflow/task`) carry over (R158-5): `-jn`, `-pf`/
 * `--printpath`, `-cl`, `-rcl`/`--recursive_clean` are the port's
 * `--jobname`, `--print-path`, `--clean`, `--recompute`; `--nostream` changes
 * nothing; `--deploy_rules` is `--deploy-rules`. Those the port has no
 * behaviour for (`-prov`, `--fork`, `--update`, `--load_inputs`…) and
 * `workflow info -i/-ri`, `kb query -l` are refused (exit 2) naming what it
 * offers; `kb register -u/-d` are `--undirected`/`--description`. Before,
 * each was "Unknown input -jn" or commander's "unknown option" (exit 2).
 */
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { clearAgentCache } from "../../src/agent/load.ts";
import { ROOT, runMain, tempDir } from "../support/cli.ts";

const BAKING = join(ROOT, "fixtures/workflows/Baking");

async function setup() {
  const dir = await tempDir();
  const home = join(dir.path, "home");
  const run = (args: string[]) => runMain(args, { env: { SCOUT_HOME: home }, cwd: dir.path });
  return { dir, home, run, [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose]() };
}

Deno.test("workflow task -jn NAME -pf / --printpath / -jobname=NAME: Scout's --jobname and --print-path (R158-5)", async () => {
  await using t = await setup();
  const want = join(t.home, "var/jobs/Baking/whisk/myjob");
  for (
    const flags of [
      ["-jn", "myjob", "-pf"],
      ["-jn=myjob", "--printpath", "--nostream"],
      ["-jobname=myjob", "-print-path"],
      ["--jobname", "myjob", "--print-path"],
    ]
  ) {
    const r = await t.run(["workflow", "task", BAKING, "whisk", ...flags]);
    // before: exit 2, "Unknown input -jn" (and --printpath, --nostream alike)
    assert.equal(r.code, 0, `${flags.join(" ")}: ${r.stderr}`);
    assert.equal(r.stdout, `${want}\n`, flags.join(" "));
  }
  assert.equal(readFileSync(want, "utf8"), "Whisked 2 soft");
});

Deno.test("workflow task -cl cleans the job, -rcl / --recursive_clean its dependencies too (R158-5)", async () => {
  await using t = await setup();
  const whisk = join(t.home, "var/jobs/Baking/whisk/Default");
  const batter = async (...flags: string[]) => {
    const r = await t.run(["workflow", "task", BAKING, "batter", "--json", ...flags]);
    assert.equal(r.code, 0, `${flags.join(" ")}: ${r.stderr}`);
    return JSON.parse(r.stdout).result.batter;
  };
  assert.equal(await batter(), "Whisked 2 soft");
  writeFileSync(whisk, "tampered");
  assert.equal(await batter(), "Whisked 2 soft"); // done: not run again
  assert.equal(await batter("-cl"), "tampered"); // batter again, on the dependency as it is
  for (const flag of ["-rcl", "--recursive_clean"]) {
    writeFileSync(whisk, "tampered");
    assert.equal(await batter(flag), "Whisked 2 soft", flag); // the dependency again too
  }
});

Deno.test("workflow task --deploy_rules is --deploy-rules (R158-5)", async () => {
  await using t = await setup();
  writeFileSync(join(t.dir.path, "rules.yaml"), "defaults: {}\n");
  const r = await t.run(["workflow", "task", BAKING, "whisk", "--deploy_rules", "rules.yaml"]);
  // the port's own check of --deploy-rules, not "Unknown input --deploy_rules"
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--deploy-rules goes with --deploy local or slurm/);
});

Deno.test("Scout's flags the port has no behaviour for are refused naming what it offers (R158-5)", async () => {
  await using t = await setup();
  const refused: [string[], RegExp][] = [
    [["-prov"], /workflow info JOB/],
    [["--provenance"], /workflow info JOB/],
    [["--fork"], /--print-path/],
    [["--exec"], /--clean/],
    [["--update"], /--recompute/],
    [["--workflows", "Other"], /imports/],
    [["--load_inputs", "inputs_dir"], /--<input> value/],
    [["-ct", "whisk"], /--recompute/],
    [["-od", "Baking#whisk=x"], /inputs of the dependency/],
  ];
  for (const [flags, instead] of refused) {
    const r = await t.run(["workflow", "task", BAKING, "whisk", ...flags]);
    assert.equal(r.code, 2, flags.join(" "));
    const [line] = r.stderr.split("\n");
    assert.match(
      line!,
      new RegExp(`^scout-ai: ${flags[0]} \\(Scout's\\) is not offered by scout-ai: `),
    );
    assert.match(line!, instead);
  }
  assert.equal(existsSync(join(t.home, "var/jobs/Baking")), false);
  for (const flag of ["-i", "--inputs", "-ri", "--recursive_inputs"]) {
    const r = await t.run(["workflow", "info", flag, "Baking/whisk/Default"]);
    // before: "unknown option '-i'", with nothing on what to use
    assert.equal(r.code, 2, flag);
    assert.match(r.stderr, /is not offered by scout-ai: workflow info JOB lists the job's inputs/);
  }
  // after --, a flag-like word is an input as ever: not refused
  const after = await t.run(["workflow", "task", BAKING, "whisk", "--", "--update", "x"]);
  assert.doesNotMatch(after.stderr, /Scout's/);
});

Deno.test("--help names Scout's spellings: accepted, changing nothing, refused (R158-5)", async () => {
  await using t = await setup();
  const help = (await t.run(["workflow", "task", "--help"])).stdout.replace(/\s+/g, " ");
  assert.match(
    help,
    /Also accepted \(Scout's spellings\): --deploy_rules, -deploy_rules for --deploy-rules; -jn for --jobname; -pf, --printpath for --print-path; -cl for --clean; -rcl, --recursive_clean for --recompute\./,
  );
  assert.match(help, /Accepted, changing nothing: --nostream/);
  assert.match(
    help,
    /Scout's flags not offered \(refused, naming what to use\): -prov, --provenance, --fork, --exec, --update, --workflows, --load_inputs/,
  );
});

Deno.test("kb register -u -d / agent kb NAME register -u -d; query -l refused (R158-5)", async () => {
  await using t = await setup();
  const family = join(ROOT, "fixtures/kb/family");
  cpSync(family, join(t.dir.path, "kb"), { recursive: true });
  mkdirSync(join(t.dir.path, "Agent/Keeper/knowledge_base"), { recursive: true });
  writeFileSync(join(t.dir.path, "Agent/Keeper/start_chat"), "system: keep\n");
  clearAgentCache();
  const registers = [
    ["kb", "register", "kb"],
    ["agent", "kb", "./Agent/Keeper", "register"],
  ];
  for (const cmd of registers) {
    const r = await t.run([...cmd, "sib", join(family, "siblings"), "-u", "-d", "Both ways"]);
    // before: "unknown option '-u'", exit 2
    assert.equal(r.code, 0, `${cmd.join(" ")}: ${r.stderr}`);
  }
  for (const list of [["kb", "list", "kb"], ["agent", "kb", "./Agent/Keeper", "list"]]) {
    const r = await t.run([...list, "--json"]);
    assert.equal(r.code, 0, r.stderr);
    const sib = JSON.parse(r.stdout).databases.find((d: { name: string }) => d.name === "sib");
    assert.equal(sib.undirected, true);
    assert.equal(sib.description, "Both ways");
  }
  for (const cmd of [["kb", "query", "kb"], ["agent", "kb", "./Agent/Keeper", "query"]]) {
    const r = await t.run([...cmd, "sib", "Ada", "-l"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^scout-ai: -l \(Scout's\) is not offered by scout-ai: .*cut -f1/);
  }
});
