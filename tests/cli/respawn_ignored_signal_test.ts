/**
 * `nohup scout-ai llm prov …` (the binary, which runs `llm prov` in a child
 * of itself: `src/cli/respawn.ts`) survives a hang-up of its whole process
 * group, as a closed login session sends (R107-2). Bun's `spawn` resets every
 * signal disposition in the child, so before the child died on the SIGHUP its
 * parent ignored (exit 129); the parent now names its ignored signals to the
 * child, which ignores them too. The child waits on a FIFO (its chat) while
 * the group is hung up.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { BINARY, buildBinary, ROOT, tempDir } from "../support/cli.ts";

/** Runs a command to its end; its stdout. */
function run(cmd: string, args: string[]): string {
  const out = new Deno.Command(cmd, { args }).outputSync();
  assert.ok(out.success, `${cmd} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}

Deno.test("the binary's llm prov started with SIGHUP ignored survives its group's hang-up, exit 0 (R107-2)", async () => {
  await buildBinary();
  await using d = await tempDir();
  const fifo = join(d.path, "session.chat");
  run("mkfifo", [fifo]);
  // its own session and process group (setsid does not fork: the child leads no group)
  const child = new Deno.Command("setsid", {
    args: ["sh", "-c", 'trap "" HUP; exec "$@"', "sh", BINARY, "llm", "prov", fifo],
    cwd: d.path,
    env: { SCOUT_HOME: join(d.path, "home"), NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // opened once the respawned child opens it to read: past its start
  const writer = await Deno.open(fifo, { write: true });
  assert.equal(run("ps", ["-o", "pgid=", "-p", String(child.pid)]).trim(), String(child.pid));
  run("kill", ["-HUP", "--", `-${child.pid}`]); // the parent and the respawned child
  await writer.write(await Deno.readFile(join(ROOT, "fixtures", "chats", "basic.chat")));
  writer.close();
  const out = await child.output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.match(new TextDecoder().decode(out.stdout), /^chat /);
});
