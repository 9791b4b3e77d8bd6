/**
 * On the real single-node SLURM (tools/slurm-up), with `SBATCH_EXPORT=NONE`:
 * a batch job asks the endpoint chosen in the submitting shell, as a serial
 * run does, and gets no key of it (R109-4).
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runScout, tempDir } from "../support/cli.ts";
import { slurmEnv } from "./slurm_support.ts";

const NAMES = ["ASK_ENDPOINT", "LLM_BACKEND", "OPENAI_API_KEY", "SCOUT_AGENT_PATH"];

/** `Env/show` returns NAMES' values in the process that computes it. */
function envWorkflow(dir: string): string {
  mkdirSync(join(dir, "Env"), { recursive: true });
  writeFileSync(
    join(dir, "Env", "workflow.ts"),
    `const names = ${JSON.stringify(NAMES)};
export default (api: any) => api.workflow("Env", { tasks: {
  show: { type: "string", run: () => names.map((n) => n + "=" + (process.env[n] ?? "(unset)")).join(" ") },
} });
`,
  );
  return join(dir, "Env");
}

Deno.test("slurm --wait with SBATCH_EXPORT=NONE: the job sees the submitting shell's ASK_ENDPOINT and LLM_BACKEND, not its key (R109-4)", async () => {
  const slurm = await slurmEnv();
  await using d = await tempDir();
  const wf = envWorkflow(d.path);
  const shell = {
    ASK_ENDPOINT: "loopback",
    LLM_BACKEND: "openai",
    OPENAI_API_KEY: "sk-proj-not-for-the-node",
    SCOUT_AGENT_PATH: "/x",
  };
  const show = ["workflow", "task", wf, "show"];
  const serial = await runScout([...show, "--jobname", "serial"], {
    env: { SCOUT_HOME: d.path, ...shell },
  });
  assert.equal(serial.code, 0, serial.stderr);
  assert.equal(
    serial.stdout.trim(),
    "ASK_ENDPOINT=loopback LLM_BACKEND=openai OPENAI_API_KEY=sk-proj-not-for-the-node " +
      "SCOUT_AGENT_PATH=/x",
  );
  const r = await runScout([...show, "--jobname", "batch", "--deploy", "slurm", "--wait"], {
    env: { SCOUT_HOME: d.path, SBATCH_EXPORT: "NONE", ...shell, ...slurm },
  });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal(
    r.stdout.trim(),
    "ASK_ENDPOINT=loopback LLM_BACKEND=openai OPENAI_API_KEY=(unset) SCOUT_AGENT_PATH=/x",
  );
});
