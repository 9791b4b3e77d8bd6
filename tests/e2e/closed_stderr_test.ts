/**
 * A stderr that cannot be written — its reader gone (`2>&1 >/dev/null |
 * true`), or a full device — loses the messages, not a successful command's
 * exit status, in the binary and from source (R81-11). A failed command
 * still exits 1.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { BINARY, buildBinary, DENO, SCOUT_SOURCE_ARGS, tempDir } from "../support/cli.ts";

/** Runs `cli args` under bash with stderr sent to `stderr` (a redirection); its exit code and stdout. */
async function run(cli: string[], args: string[], stderr: string, cwd: string) {
  const words = [...cli, ...args].map((w) => `'${w}'`).join(" ");
  const out = await new Deno.Command("bash", {
    args: ["-c", `${stderr}\n${words}`],
    cwd,
    env: { NO_COLOR: "1", HOME: join(cwd, "home"), SCOUT_HOME: join(cwd, "scout") },
    stdout: "piped",
    stderr: "null",
  }).output();
  return { code: out.code, stdout: new TextDecoder().decode(out.stdout) };
}

Deno.test("a stderr that cannot be written does not change the exit status (source and binary) (R81-11)", async () => {
  await using d = await tempDir();
  writeFileSync(join(d.path, "x.chat"), "user: hi\n");
  await buildBinary();
  const clis = { source: [DENO, ...SCOUT_SOURCE_ARGS], binary: [BINARY] };
  // the reader of the stderr pipe has exited before the command writes: EPIPE
  const gone = "exec 2> >(true); sleep 0.3";
  for (const [name, cli] of Object.entries(clis)) {
    for (const stderr of [gone, "exec 2>/dev/full"]) {
      const ok = await run(cli, ["chat", "prompt", "x.chat", "--json"], stderr, d.path);
      assert.equal(ok.code, 0, `${name}: ${stderr}`);
      assert.equal(JSON.parse(ok.stdout).prompt.length, 1);
      const failed = await run(cli, ["chat", "prompt", "nosuch.chat"], stderr, d.path);
      assert.equal(failed.code, 1, `${name}: ${stderr}`);
    }
  }
});
