/**
 * A closed terminal is a hang-up (R98-4): stdout on a real pty whose master
 * side is closed (writes fail: EIO, which Deno reports as EPIPE) ends the
 * command as SIGHUP does — a running job recorded `aborted`, exit 129 — not
 * as a closed pipe (exit 0, the job left `start`). The pty is Python's (the
 * child is not its session's controlling terminal, so no SIGHUP comes: only
 * the failed writes tell).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { BINARY, buildBinary, DENO, SCOUT_SOURCE_ARGS, tempDir } from "../support/cli.ts";

const WF = `export default (api) => api.workflow("T", { tasks: {
  tick: { type: "string", run: async () => {
    for (let i = 0; i < 100; i++) {
      process.stdout.write("tick\\n");
      await new Promise((r) => setTimeout(r, 100));
    }
    return "x"; } },
  big: { type: "string", run: () => "y".repeat(4_000_000) },
} });
`;

/** Runs argv with stdout on a pty, closes the pty once output came, prints the exit status. */
const DRIVE = `
import os, subprocess, sys
master, slave = os.openpty()
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=slave,
                     stderr=subprocess.PIPE, start_new_session=True)
os.close(slave)
os.read(master, 64)
os.close(master)
try:
    _, err = p.communicate(timeout=30)
except subprocess.TimeoutExpired:
    p.kill()
    _, err = p.communicate()
sys.stderr.write(err.decode(errors="replace"))
print(p.returncode)
`;

async function onClosedPty(
  dir: string,
  scout: string[],
  args: string[],
): Promise<{ code: number; err: string }> {
  const out = await new Deno.Command("python3", {
    args: ["-c", DRIVE, ...scout, ...args],
    cwd: dir,
    env: { SCOUT_HOME: join(dir, "home"), NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const err = new TextDecoder().decode(out.stderr);
  return { code: Number(new TextDecoder().decode(out.stdout).trim()), err };
}

function info(dir: string, task: string): { status?: string; messages?: string[] } {
  return JSON.parse(Deno.readTextFileSync(join(dir, "home/var/jobs/T", task, "Default.info")));
}

Deno.test("a closed terminal (writes to a pty whose master is closed fail) is a hang-up: the running job is recorded aborted, exit 129; with no job running, exit 129 too; source (Deno: EPIPE) and binary (Bun: EIO) (R98-4)", async () => {
  await buildBinary();
  for (const scout of [[DENO, ...SCOUT_SOURCE_ARGS], [BINARY]]) {
    await using dir = await tempDir();
    await Deno.mkdir(join(dir.path, "workflows/T"), { recursive: true });
    await Deno.writeTextFile(join(dir.path, "workflows/T/workflow.ts"), WF);
    const running = await onClosedPty(dir.path, scout, ["workflow", "task", "T", "tick"]);
    assert.equal(running.code, 129, running.err);
    assert.equal(info(dir.path, "tick").status, "aborted");
    assert.deepEqual(info(dir.path, "tick").messages, ["Aborted: interrupted by SIGHUP"]);
    // the result printed after the job is done: no handler runs, the exit says hang-up
    const printing = await onClosedPty(dir.path, scout, ["workflow", "task", "T", "big"]);
    assert.equal(printing.code, 129, printing.err);
    assert.equal(info(dir.path, "big").status, "done");
  }
});
