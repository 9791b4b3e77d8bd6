/**
 * Agent names are ASCII (`agents.md` §7.2), and what says so says so
 * (R162-6): `agent find Müller` names the rule with "ASCII letters", and
 * `agent list` tells which directories with agent files it leaves out for
 * their names, on stderr once each and in `--json` as `skipped`.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";

function put(root: string, rel: string, text = ""): void {
  const p = join(root, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, text);
}

Deno.test("agent find of a non-ASCII name says the letters are ASCII ones (R162-6)", async () => {
  await using t = await tempDir();
  put(t.path, "Agent/Müller/start_chat", "system: hi\n");
  const r = await runMain(["agent", "find", "Müller"], {
    cwd: t.path,
    env: { SCOUT_HOME: join(t.path, "home"), HOME: t.path },
  });
  assert.equal(r.code, 1, r.stderr);
  assert.equal(
    r.stderr,
    'scout-ai: Invalid agent name "Müller": use ASCII letters, digits, "_", "." and "-"' +
      ' (no "." or ".." segments)\n',
  );
});

Deno.test("agent list says which agent directories it leaves out for their names, once each (R162-6)", async () => {
  await using t = await tempDir();
  const home = join(t.path, "home");
  put(t.path, "Agent/Müller/start_chat", "system: hi\n");
  put(home, "Agent/研究者🔬/agent.ts", "export default () => {};\n");
  put(t.path, "Agent/Fine/start_chat", "system: hi\n");
  mkdirSync(join(t.path, "Agent", "notes é")); // no agent files: not an agent, not told of
  const skippedDirs = [join(t.path, "Agent", "Müller"), join(home, "Agent", "研究者🔬")];
  const o = { cwd: t.path, env: { SCOUT_HOME: home, HOME: t.path } };

  const r = await runMain(["agent", "list"], o);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Fine {2}/);
  assert.equal(r.stdout.trim().split("\n").length, 1, r.stdout);
  const warnings = r.stderr.trim().split("\n");
  assert.deepEqual(
    warnings.toSorted(),
    skippedDirs.map((d) =>
      `scout-ai: warning: Agent directory "${d}" is not listed: ` +
      'its name is not made of ASCII letters, digits, "_", "." and "-"'
    ).toSorted(),
  );

  const j = await runMain(["agent", "list", "--json"], o);
  assert.equal(j.code, 0, j.stderr);
  const out = JSON.parse(j.stdout);
  assert.deepEqual(out.agents.map((a: { name: string }) => a.name), ["Fine"]);
  assert.deepEqual(
    out.skipped.map((s: { path: string }) => s.path).toSorted(),
    skippedDirs.toSorted(),
  );
  assert.match(out.skipped[0].reason, /ASCII letters/);
});
