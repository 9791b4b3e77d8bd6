/**
 * A signal the process started with ignored stays ignored (R107-2): `nohup
 * scout-ai workflow task …` (SIGHUP ignored) outlives a closed login
 * session, and a background job of a non-interactive shell (`cmd &`:
 * SIGINT ignored) is not stopped by a Ctrl-C meant for the shell — as in
 * Ruby. Before, the listener the CLI installs with the first job replaced the
 * ignore (Bun and Deno both), and the job was recorded aborted (exit 129/130).
 * Real processes, from source (Deno) and as the binary (Bun). Whenever the
 * signal is read (during the job, or once it is done), before the fix it
 * exited 129/130.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { BINARY, buildBinary, DENO, SCOUT_SOURCE_ARGS, tempDir } from "../support/cli.ts";

import { env, readInfo, userWorkflow } from "./cli_support.ts";

/** A task that waits, its event loop free, until the file `go` exists. */
function slowWorkflow(go: string): string {
  return `import { existsSync } from "node:fs";
export default (api) => api.workflow("Slow", { tasks: {
  wait: { type: "string", run: async () => {
    while (!existsSync(${JSON.stringify(go)})) await new Promise((r) => setTimeout(r, 20));
    return "finished";
  } },
} });
`;
}

/** How each start ignores its signal: the nohup binary, a shell's `trap ""` then `exec`. */
const STARTS = [
  { signal: "SIGHUP", wrap: (cmd: string[]) => ["nohup", ...cmd] },
  {
    signal: "SIGINT",
    wrap: (cmd: string[]) => ["sh", "-c", 'trap "" INT; exec "$@"', "sh", ...cmd],
  },
] as const;

const RUNTIMES = [
  { name: "from source (Deno)", cmd: () => Promise.resolve([DENO, ...SCOUT_SOURCE_ARGS]) },
  { name: "the binary (Bun)", cmd: async () => (await buildBinary(), [BINARY]) },
];

for (const { name, cmd } of RUNTIMES) {
  for (const { signal, wrap } of STARTS) {
    Deno.test(`workflow task started with ${signal} ignored, ${name}: the job completes, exit 0 (R107-2)`, async () => {
      await using d = await tempDir();
      const go = join(d.path, "go");
      userWorkflow(d.path, "Slow", slowWorkflow(go));
      const path = join(d.path, "var/jobs/Slow/wait/nh1");
      const [exe, ...args] = wrap([
        ...await cmd(),
        "workflow",
        "task",
        "Slow",
        "wait",
        "--jobname",
        "nh1",
      ]);
      const child = new Deno.Command(exe!, {
        args,
        cwd: d.path,
        env: env(d.path),
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      while (readInfo(path)?.status !== "start") await new Promise((r) => setTimeout(r, 20));
      // the CLI's listeners are installed with the first job: the signal is still ignored
      child.kill(signal);
      writeFileSync(go, "");
      const out = await child.output();
      const stderr = new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 0, stderr);
      assert.equal(new TextDecoder().decode(out.stdout), "finished\n");
      assert.equal(readInfo(path)?.status, "done");
    });
  }
}
