/**
 * Credentials around a workflow task (R146-5): an input named like one
 * (`--api_key`) is recorded as given in the job's `.info`, as Scout records
 * every input, and its job's name does not change — but `workflow task` warns,
 * naming it, where its value goes and what to do instead; with `--deploy
 * slurm` also that the batch script's command line holds it. `SCOUT_*`
 * settings that are credentials by their name (`SCOUT_BEARER`) or their look
 * (a url with `user:password@`, `sshpass -p …`, `--password …`) are left
 * out of the batch script, a note naming them (never their values).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runScout, tempDir } from "../support/cli.ts";
import { env, userWorkflow } from "./cli_support.ts";
import { standInSlurm } from "./deploy_fixtures.ts";

const SEC = `export default (api) => api.workflow("Sec", { tasks: {
  use: {
    type: "string",
    inputs: { api_key: { type: "string" }, n: { type: "integer", default: 1 } },
    run: (i) => "used " + i.api_key.length + " " + i.n,
  },
} });
`;

const task = (dir: string, args: string[], extra: Record<string, string> = {}) =>
  runScout(["workflow", "task", "Sec", "use", ...args], {
    cwd: dir,
    env: { ...env(join(dir, "home")), ...extra },
  });

Deno.test("workflow task: an input named like a credential is kept in .info as Scout keeps it, its job name unchanged, and warned about by name (R146-5)", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Sec", SEC);
  const r = await task(d.path, ["--api_key", "CANARY-wfinput", "--print-path"]);
  assert.equal(r.code, 0, r.stderr);
  const path = r.stdout.trim();
  // the job's identity is the one its inputs always gave (Ruby Scout finds the same job)
  assert.match(path, /\/var\/jobs\/Sec\/use\/Default_ff70420ac5da4d26da747651caa80573$/);
  const info = JSON.parse(readFileSync(path + ".info", "utf8"));
  assert.deepEqual(info.provided_inputs, { api_key: "CANARY-wfinput" });
  assert.deepEqual(info.inputs, ["CANARY-wfinput", 1]);
  assert.equal(r.stderr.match(/warning/g)?.length, 1, r.stderr);
  assert.match(
    r.stderr,
    /^scout-ai: warning: input --api_key of Sec\/use is named like a credential: its value is stored as given in the job's \.info \(provided_inputs, inputs; as Scout stores every input\); let the task read a key from an environment variable or an endpoint file instead$/m,
  );
  assert.ok(!r.stderr.includes("CANARY-wfinput"), r.stderr);
  // an input named like none is not warned about
  const plain = await task(d.path, ["--api_key", "x", "--n", "2"], {
    SCOUT_HOME: join(d.path, "h2"),
  });
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(plain.stderr.match(/warning/g)?.length, 1, plain.stderr);
  assert.doesNotMatch(plain.stderr, /--n /);
});

Deno.test("slurm --dry-run --json: SCOUT_* credentials by name or look stay out of command.batch, named in a note; a credential-named input is warned about (R146-5)", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Sec", SEC);
  const r = await task(d.path, [
    "--api_key",
    "CANARY-slurminput",
    "--deploy",
    "slurm",
    "--dry-run",
    "--json",
  ], {
    SCOUT_SSH: "sshpass -p CANARY-sshpass ssh",
    SCOUT_BEARER: "CANARY-scoutbearer",
    SCOUT_RELAY_SERVER: "http://u:CANARY-relaypw@h/q",
    SCOUT_TOOL_CMD: "tool --password=CANARY-pwopt",
    SCOUT_MAX_TOOL_ROUNDS: "3",
    ASK_ENDPOINT: "gpu",
  });
  assert.equal(r.code, 0, r.stderr);
  const script: string = JSON.parse(r.stdout).script;
  for (const canary of ["CANARY-sshpass", "CANARY-scoutbearer", "CANARY-relaypw", "CANARY-pwopt"]) {
    assert.ok(!r.stdout.includes(canary), `${canary} in the script:\n${script}`);
    assert.ok(!r.stderr.includes(canary), `${canary} on stderr:\n${r.stderr}`);
  }
  // what is no credential is still exported, and the command still gets its input
  assert.match(script, /^export SCOUT_MAX_TOOL_ROUNDS=3$/m);
  assert.match(script, /^export ASK_ENDPOINT=gpu$/m);
  assert.match(script, / workflow task Sec use --api_key CANARY-slurminput /);
  assert.match(
    r.stderr,
    /^scout-ai: warning: left out of the batch scripts as credentials \(by their name or look\): SCOUT_BEARER, SCOUT_RELAY_SERVER, SCOUT_SSH, SCOUT_TOOL_CMD; /m,
  );
  assert.match(
    r.stderr,
    /^scout-ai: warning: input --api_key of Sec\/use is named like a credential: its value is stored as given in the job's \.info \(provided_inputs, inputs; as Scout stores every input\) and in the command line of its batch script \(command\.batch\); /m,
  );
  assert.ok(!r.stderr.includes("CANARY-slurminput"), r.stderr);
});

Deno.test("slurm: a submission sbatch refuses still names the settings its command.batch left out, and the file holds none of them (R146-5)", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Sec", SEC);
  const bin = standInSlurm(d.path);
  const r = await task(d.path, ["--api_key", "k", "--deploy", "slurm"], {
    PATH: `${bin}:${process.env.PATH}`,
    SB_FAIL_AT: "1",
    SB_FAIL_STDERR: "sbatch: error: Batch job submission failed",
    SCOUT_BEARER: "CANARY-scoutbearer",
    SCOUT_SSH: "sshpass -p CANARY-sshpass ssh",
  });
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /^scout-ai: warning: left out of the batch scripts as credentials \(by their name or look\): SCOUT_BEARER, SCOUT_SSH; /m,
  );
  const batch = join(d.path, "home", "var", "batch");
  const [dir] = readdirSync(batch);
  const script = readFileSync(join(batch, dir!, "command.batch"), "utf8");
  assert.match(script, /^export SCOUT_HOME=/m);
  for (const canary of ["CANARY-scoutbearer", "CANARY-sshpass"]) {
    assert.ok(!script.includes(canary), script);
    assert.ok(!r.stderr.includes(canary), r.stderr);
  }
});
