/**
 * A job's body that blocks its process synchronously longer than the lock's
 * stale age (R89-1): the holder keeps its lock fresh from a worker thread, so
 * a second `workflow task` of the same job waits and loads the first one's
 * result instead of judging the lock stale and running the body again.
 * Through real processes: from source and as the built binary.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BINARY, buildBinary, DENO, SCOUT_SOURCE_ARGS, tempDir } from "../support/cli.ts";
import { env, readInfo, userWorkflow } from "./cli_support.ts";

/** The stale age the processes run with (`SCOUT_LOCK_MAX_AGE`), and how long the body blocks. */
const MAX_AGE_S = 2;
const BLOCK_S = 6;

const BLOCK = (log: string) =>
  `import { execSync } from "node:child_process";
import { appendFileSync } from "node:fs";
export default (api) => api.workflow("Block", { tasks: { tool: { type: "string",
  inputs: { secs: api.input.integer({ default: 40 }) },
  run: ({ secs }) => {
    appendFileSync(${JSON.stringify(log)}, \`\${process.pid} start\\n\`);
    execSync(\`sleep \${secs}\`);
    appendFileSync(${JSON.stringify(log)}, \`\${process.pid} end\\n\`);
    return \`ran \${secs} in \${process.pid}\`;
  } } } });
`;

function spawn(cmd: string, args: string[], dir: string): Deno.ChildProcess {
  return new Deno.Command(cmd, {
    args: [...args, "workflow", "task", "Block", "tool", "--secs", String(BLOCK_S)],
    cwd: dir,
    env: { ...env(dir), SCOUT_LOCK_MAX_AGE: String(MAX_AGE_S) },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

async function twoRuns(cmd: string, args: string[]): Promise<void> {
  await using d = await tempDir();
  const log = join(d.path, "block.log");
  userWorkflow(d.path, "Block", BLOCK(log));
  const path = join(d.path, "var/jobs/Block/tool");
  const first = spawn(cmd, args, d.path);
  const t0 = Date.now();
  while (!existsSync(log)) {
    if (Date.now() - t0 > 60_000) throw new Error("the first run's body never started");
    await new Promise((r) => setTimeout(r, 20));
  }
  const second = spawn(cmd, args, d.path);
  const [a, b] = await Promise.all([first.output(), second.output()]);
  const dec = new TextDecoder();
  const lines = readFileSync(log, "utf8").trim().split("\n");
  const job = readdirSync(path).find((n) => !n.includes("."))!;
  const info = readInfo(join(path, job));
  assert.deepEqual(
    lines,
    [`${first.pid} start`, `${first.pid} end`],
    `the body ran exactly once, in the first process (info: ${JSON.stringify(info)})`,
  );
  assert.equal(a.code, 0, dec.decode(a.stderr));
  assert.equal(b.code, 0, dec.decode(b.stderr));
  assert.equal(dec.decode(a.stdout), `ran ${BLOCK_S} in ${first.pid}\n`);
  assert.equal(dec.decode(b.stdout), `ran ${BLOCK_S} in ${first.pid}\n`, "the second loads it");
  assert.equal(readFileSync(join(path, job), "utf8"), `ran ${BLOCK_S} in ${first.pid}`);
  const locks = join(d.path, "tmp", "persist_locks");
  assert.deepEqual(existsSync(locks) ? readdirSync(locks) : [], [], "no lock left behind");
}

Deno.test("workflow task: a body blocking past the stale age runs once; the second run waits (R89-1)", async () => {
  await twoRuns(DENO, [...SCOUT_SOURCE_ARGS]);
});

Deno.test("workflow task (binary): a body blocking past the stale age runs once (R89-1)", async () => {
  await buildBinary();
  await twoRuns(BINARY, []);
});
