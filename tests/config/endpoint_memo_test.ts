/**
 * `loadEndpoint` parses each endpoint file's text once (every inference loads
 * its endpoint; the YAML parse was a visible share of each delegated call in
 * bench-agents): an edited file is parsed again, and callers get their own
 * copies.
 */
import assert from "node:assert/strict";
import { mkdirSync, renameSync, statSync, utimesSync, writeFileSync } from "node:fs";
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
  writeFileSync(file, "backend: openai\nmodel: a: b\n");
  await assert.rejects(loadEndpoint("ep", { cwd: t.path, env }), (e: Error) => {
    // the problem on one line, where as the file and line (no "at line…, column…:")
    assert.match(e.message, /^Cannot parse endpoint file: [^\n]*[a-z\]]$/);
    assert.deepEqual([(e as { file?: string }).file, (e as { line?: number }).line], [file, 2]);
    return true;
  });
});

Deno.test("loadEndpoint: an edit of the same size right after a read is seen (stats of a fresh file are not trusted)", async () => {
  await using t = await tempDir();
  const dir = join(t.path, "etc", "AI");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "ep.yaml");
  const env = { SCOUT_HOME: t.path };
  for (const model of ["aaa", "bbb", "ccc"]) {
    // same size each time, within one tick of the file system's clock
    writeFileSync(file, `model: ${model}\n`);
    assert.equal((await loadEndpoint("ep", { cwd: t.path, env })).settings.model, model);
  }
});

Deno.test("loadEndpoint: once a file has aged, its stats vouch for it — and any change of them is seen", async () => {
  await using t = await tempDir();
  const home = join(t.path, "home");
  const dir = join(home, "etc", "AI");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "ep.yaml");
  const env = { SCOUT_HOME: home };
  writeFileSync(file, "model: old\n");
  await new Promise((r) => setTimeout(r, 2_100)); // older than the racy window
  assert.equal((await loadEndpoint("ep", { cwd: t.path, env })).settings.model, "old");
  assert.equal((await loadEndpoint("ep", { cwd: t.path, env })).settings.model, "old");
  // same size, in place
  writeFileSync(file, "model: new\n");
  assert.equal((await loadEndpoint("ep", { cwd: t.path, env })).settings.model, "new");
  // replaced by another file with the same size and modification time
  const other = join(dir, "other.yaml");
  writeFileSync(other, "model: rep\n");
  const { mtime, atime } = statSync(file);
  utimesSync(other, atime, mtime);
  renameSync(other, file);
  assert.equal((await loadEndpoint("ep", { cwd: t.path, env })).settings.model, "rep");
  // a file of higher priority (./etc/AI) made later wins
  mkdirSync(join(t.path, "etc", "AI"), { recursive: true });
  writeFileSync(join(t.path, "etc", "AI", "ep.yaml"), "model: cwd\n");
  const e = await loadEndpoint("ep", { cwd: t.path, env });
  assert.equal(e.settings.model, "cwd");
  assert.equal(e.file, join(t.path, "etc", "AI", "ep.yaml"));
});
