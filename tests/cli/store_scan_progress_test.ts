/**
 * A command that reads every job of a store shows a progress line while it
 * does (R147-4: `system clean all` on 100 000 jobs printed nothing for ~25 s,
 * `workflow list Baking` for 12 s): `scout-ai: scanning jobs: N…` on a
 * terminal, erased before the output; nothing of it in a pipe. Real
 * `scout-ai` subprocesses, at a pty (`tests/support/pty.ts`) and in pipes,
 * on a synthetic store (`tests/support/synthetic_store.ts`).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DENO, ROOT, runScout, SCOUT_SOURCE_ARGS, tempDir } from "../support/cli.ts";
import { atTerminal } from "../support/pty.ts";
import { writeSyntheticStore } from "../support/synthetic_store.ts";

const BAKING = join(ROOT, "fixtures", "workflows", "Baking");
// deno-lint-ignore no-control-regex
const LINE = /\r\x1b\[Kscout-ai: scanning jobs: \d+…/;

Deno.test("system clean and workflow list show a scanning line on a terminal, none in a pipe", async () => {
  await using d = await tempDir();
  const jobs = join(d.path, "jobs");
  writeSyntheticStore({
    root: jobs,
    workflow: "Baking",
    task: "whisk",
    jobs: 30,
    inputBytes: 100,
    daysOld: 40,
  });
  const env = { NO_COLOR: "1", HOME: d.path, SCOUT_HOME: join(d.path, "home") };
  const commands = [
    ["system", "clean", "all", "--older", "30d", "--dry-run", "--jobs-dir", jobs],
    ["workflow", "list", BAKING, "--jobs-dir", jobs],
  ];
  for (const args of commands) {
    const tty = await atTerminal([DENO, ...SCOUT_SOURCE_ARGS, ...args], { cwd: d.path, env });
    assert.equal(tty.code, 0, tty.screen);
    assert.match(tty.screen, LINE, `${args.join(" ")} at a terminal:\n${tty.screen}`);
    const piped = await runScout(args, { cwd: d.path, env });
    assert.equal(piped.code, 0, piped.stderr);
    assert.ok(!piped.stderr.includes("scanning"), `${args.join(" ")} in a pipe: ${piped.stderr}`);
    assert.ok(!piped.stdout.includes("scanning"), piped.stdout);
    // the same output, the line erased before it
    // deno-lint-ignore no-control-regex
    const screen = tty.screen.replace(/\r\x1b\[K(scout-ai: scanning jobs: \d+…)?/g, "");
    assert.equal(screen.replaceAll("\r\n", "\n"), piped.stdout, args.join(" "));
  }
});
