/**
 * `loadEndpoint` parses each endpoint file's text once (every inference loads
 * its endpoint; the YAML parse was a visible share of each delegated call in
 * bench-agents): an edited file is parsed again, and callers get their own
 * copies.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadEndpoint } from "../../src/config/endpoints.ts";
import { tempDir } from "../support/cli.ts";

Deno.test("loadEndpoint: same text, same settings (own copies); an edited file is read anew; a bad edit still fails", async () => {
  await using t = await tempDir();
  const dir = join(t.path, "etc", "AI");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "ep.yaml");
  writeFileSync(file, "backend: openai\nmodel: one\nheaders:\n  x-a: b\n");
  const env = { SCOUT_HOME: t.path };
  const a = await loadEndpoint("ep", { cwd: t.path, env });
  assert.deepEqual(a.settings, { backend: "openai", model: "one", headers: { "x-a": "b" } });
  (a.settings.headers as Record<string, string>)["x-a"] = "changed";
  a.settings.model = "changed";
  const b = await loadEndpoint("ep", { cwd: t.path, env });
  assert.deepEqual(b.settings, { backend: "openai", model: "one", headers: { "x-a": "b" } });
  writeFileSync(file, "provider: anthropic\nmodel: two\n");
  const c = await loadEndpoint("ep", { cwd: t.path, env });
  assert.deepEqual(c.settings, { backend: "anthropic", model: "two" });
  writeFileSync(file, "model: [unclosed\n");
  await assert.rejects(loadEndpoint("ep", { cwd: t.path, env }), /Cannot parse endpoint file/);
});
