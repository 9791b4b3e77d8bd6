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
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runScout, tempDir } from "../support/cli.ts";
import { env, userWorkflow } from "./cli_support.ts";

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
