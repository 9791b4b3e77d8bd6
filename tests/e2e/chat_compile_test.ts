/** `chat compile` / `chat prompt` through the built binary: same bytes as from source. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { buildBinary, ROOT, runBinary, runScout } from "../support/cli.ts";

const FIX = join(ROOT, "fixtures/compile");
const env = { NO_COLOR: "1", HOME: "/nonexistent-home", SCOUT_HOME: "/nonexistent-scout" };

Deno.test("binary: chat compile and chat prompt match the source run byte for byte", async () => {
  await buildBinary();
  const cases = [
    ["chat", "compile", "session.chat"],
    ["chat", "compile", "session.chat", "--chat"],
    ["chat", "prompt", "agent_run.chat", "--json"],
    ["chat", "prompt", "agent_run.chat", "-s", "shorten_tools"],
    ["chat", "compile", "cycle_a.chat"],
    ["chat", "compile", "missing_import.chat"],
  ];
  for (const args of cases) {
    const [bin, src] = await Promise.all([
      runBinary(args, { cwd: FIX, env }),
      runScout(args, { cwd: FIX, env }),
    ]);
    assert.equal(bin.code, src.code, args.join(" "));
    assert.equal(bin.stdout, src.stdout, args.join(" "));
    assert.equal(bin.stderr, src.stderr, args.join(" "));
  }
});
