/**
 * A typo in a role or an agent's name is answered with the near names first
 * (R128-5): `sytem:` suggests `system` before the allow-list hint, and
 * `agent ask Helpr` suggests the `Helper` that `agent list` shows.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { homeIn, runScout, tempDir } from "../support/cli.ts";

Deno.test("R128-5: an unknown role near a chat role says did you mean, then how to allow it", async () => {
  await using d = await tempDir();
  writeFileSync(join(d.path, "c.chat"), "sytem:\n\nbe terse\n\nuser: hi\n");
  const env = { ...homeIn(d.path), HOME: d.path };
  const r = await runScout(["chat", "compile", "c.chat"], { cwd: d.path, env });
  assert.equal(r.code, 1, r.stderr);
  assert.equal(
    r.stderr,
    'scout-ai: Unknown role "sytem": did you mean "system"? Not a chat role ' +
      '(allow it with config "allow_roles" or --allow-role) (c.chat:1)\n',
  );
  // a role near none keeps the message it had
  writeFileSync(join(d.path, "m.chat"), "user: hi\n\nmake: done\n");
  const far = await runScout(["chat", "compile", "m.chat"], { cwd: d.path, env });
  assert.equal(
    far.stderr,
    'scout-ai: Unknown role "make": not a chat role ' +
      '(allow it with config "allow_roles" or --allow-role) (m.chat:3)\n',
  );
});

Deno.test("R128-5: agent ask with a typo of an agent's name suggests the agent", async () => {
  await using d = await tempDir();
  mkdirSync(join(d.path, "Agent/Helper"), { recursive: true });
  writeFileSync(join(d.path, "Agent/Helper/start_chat"), "system: you help\n");
  const env = { ...homeIn(d.path), HOME: d.path, SCOUT_AGENT_PATH: d.path };
  const r = await runScout(["agent", "ask", "Helpr", "--dry-run", "hi"], { cwd: d.path, env });
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /^scout-ai: No agent found with name Helpr; did you mean "Helper"\? \(searched /,
  );
  const far = await runScout(["agent", "ask", "Zzzzzz", "--dry-run", "hi"], { cwd: d.path, env });
  assert.match(far.stderr, /^scout-ai: No agent found with name Zzzzzz \(searched /);
});
