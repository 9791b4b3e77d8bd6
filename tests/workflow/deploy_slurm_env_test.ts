/**
 * A batch job's script sets the environment it needs itself: run with none
 * of the submitting shell's (as `SBATCH_EXPORT=NONE` runs it, here with
 * `env -i` and a different HOME) it still computes its job into the
 * submitter's job store; no credential is written into it; a worker given a
 * job of another store says the store differs (R79-6).
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { BAKING, env, userWorkflow } from "./cli_support.ts";
import { standInSlurm } from "./deploy_fixtures.ts";

/** Runs a batch directory's `command.batch` as a node would under `--export=NONE`: no environment but HOME and PATH. */
function runOnNode(batchDir: string, home: string): Promise<Deno.CommandOutput> {
  return new Deno.Command("env", {
    args: ["-i", `HOME=${home}`, "PATH=/usr/bin:/bin", "bash", join(batchDir, "command.batch")],
    cwd: "/",
    stdout: "piped",
    stderr: "piped",
  }).output();
}

Deno.test("slurm: command.batch run with an empty environment and another HOME computes its job in the submitter's store (R79-6)", async () => {
  await using d = await tempDir();
  const home = join(d.path, "home");
  const nodeHome = join(d.path, "node-home"); // the compute node's HOME for the user
  mkdirSync(nodeHome);
  const r = await runMain(
    ["workflow", "task", BAKING, "whisk", "--eggs", "4", "--deploy", "slurm", "--json"],
    {
      cwd: d.path,
      env: {
        ...env(home),
        SQ_STATE: "PENDING",
        PATH: `${standInSlurm(d.path)}:${process.env.PATH}`,
        SCOUT_NO_RECOVERABLE_ERROR: "true",
        SCOUT_SERVICE_TOKEN: "not-to-be-written",
        SCOUT_SOME_URL: "sk-proj-abcdef", // a key, whatever its name
      },
    },
  );
  assert.equal(r.code, 0, r.stderr);
  const [unit] = JSON.parse(r.stdout).units;
  const script = readFileSync(join(unit.batchDir, "command.batch"), "utf8");
  assert.match(script, new RegExp(`\nexport SCOUT_HOME=${home}\n`));
  assert.match(script, /\nexport SCOUT_NO_RECOVERABLE_ERROR=true\n/);
  assert.ok(!script.includes("not-to-be-written") && !script.includes("sk-proj"), script);
  const run = await runOnNode(unit.batchDir, nodeHome);
  const stderr = new TextDecoder().decode(run.stderr);
  assert.equal(run.code, 0, stderr);
  assert.equal(readFileSync(join(unit.batchDir, "exit.status"), "utf8"), "0\n");
  assert.equal(readFileSync(unit.path, "utf8"), "Whisked 4 soft");
  assert.ok(!existsSync(join(nodeHome, ".scout")), "nothing in the node's ~/.scout");
});

Deno.test("a worker asked for a job of another store says the store differs (R79-6)", async () => {
  await using d = await tempDir();
  const other = join(d.path, "elsewhere", "var", "jobs", "Baking", "whisk", "Default");
  const r = await runMain(["workflow", "task", BAKING, "whisk", "--deploy-job", other], {
    cwd: d.path,
    env: env(join(d.path, "home")),
  });
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    new RegExp(
      `^scout-ai: Job "${other}" is not in the graph of Baking/whisk/Default: it is not under this ` +
        `job store \\(.*${join(d.path, "home")}/var/jobs; SCOUT_HOME ${join(d.path, "home")}\\); ` +
        "does this process have the submitting shell's SCOUT_HOME \\(or --jobs-dir\\)\\?\n$",
    ),
  );
});

Deno.test("slurm: command.batch carries the submitting shell's endpoint, backend and cache settings, never a key (R109-4)", async () => {
  await using d = await tempDir();
  const home = join(d.path, "home");
  const wf = userWorkflow(
    d.path,
    "Env",
    `const names = ["ASK_ENDPOINT", "LLM_BACKEND", "PERSIST", "ASK", "OPENAI_KEY", "OPENAI_API_KEY", "SCOUT_AGENT_PATH"];
export default (api: any) => api.workflow("Env", { tasks: {
  show: { type: "string", run: () => names.map((n) => n + "=" + (process.env[n] ?? "(unset)")).join(" ") },
} });
`,
  );
  const r = await runMain(["workflow", "task", wf, "show", "--deploy", "slurm", "--json"], {
    cwd: d.path,
    env: {
      ...env(home),
      SQ_STATE: "PENDING",
      PATH: `${standInSlurm(d.path)}:${process.env.PATH}`,
      ASK_ENDPOINT: "loopback",
      LLM_BACKEND: "openai",
      PERSIST: "false",
      ASK: "sk-proj-abcdef0123456789", // a key, whatever its name
      OPENAI_KEY: "sk-not-to-be-written",
      OPENAI_API_KEY: "not-to-be-written-either",
      SCOUT_AGENT_PATH: "/x",
    },
  });
  assert.equal(r.code, 0, r.stderr);
  const [unit] = JSON.parse(r.stdout).units;
  const script = readFileSync(join(unit.batchDir, "command.batch"), "utf8");
  for (const line of ["ASK_ENDPOINT=loopback", "LLM_BACKEND=openai", "PERSIST=false"]) {
    assert.ok(script.includes(`\nexport ${line}\n`), script);
  }
  assert.ok(!/not-to-be-written|sk-|OPENAI|export ASK=/.test(script), script);
  const run = await runOnNode(unit.batchDir, d.path);
  assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
  assert.equal(
    readFileSync(unit.path, "utf8"),
    "ASK_ENDPOINT=loopback LLM_BACKEND=openai PERSIST=false ASK=(unset) OPENAI_KEY=(unset) " +
      "OPENAI_API_KEY=(unset) SCOUT_AGENT_PATH=/x",
  );
});
