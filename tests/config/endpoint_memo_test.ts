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
import { DENO, ROOT, tempDir } from "../support/cli.ts";

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

/**
 * Loads endpoint "ep" twice in a process of its own and prints the bytes the
 * second load read (Linux's `/proc/self/io`, readable only with all
 * permissions).
 */
const LOAD_TWICE = `
import { loadEndpoint } from "${join(ROOT, "src", "config", "endpoints.ts")}";
const read = () => Number(/rchar: (\\d+)/.exec(Deno.readTextFileSync("/proc/self/io"))[1]);
const [cwd, home] = Deno.args;
const opts = { cwd, env: { SCOUT_HOME: home } };
const first = (await loadEndpoint("ep", opts)).settings.model;
const before = read();
const second = (await loadEndpoint("ep", opts)).settings.model;
console.log(JSON.stringify({ first, second, read: read() - before }));
`;

Deno.test("loadEndpoint: a file with a future mtime vouches once its ctime aged; a rewrite keeping that mtime is seen (R112-2)", async () => {
  await using t = await tempDir();
  const home = join(t.path, "home");
  const dir = join(home, "etc", "AI");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "ep.yaml");
  const env = { SCOUT_HOME: home };
  const pad = "#" + "x".repeat(64 * 1024) + "\n"; // a read of the file shows in the bytes read
  const future = new Date(Date.UTC(2100, 0, 1)); // `touch -d`, `tar x` from a clock ahead
  writeFileSync(file, `${pad}model: old\n`);
  utimesSync(file, future, future);
  await new Promise((r) => setTimeout(r, 2_100)); // the ctime older than the racy window
  const script = join(t.path, "load_twice.ts");
  writeFileSync(script, LOAD_TWICE);
  const args = [
    "run",
    "-A",
    "--no-check",
    "--config",
    join(ROOT, "deno.json"),
    script,
    t.path,
    home,
  ];
  const out = new Deno.Command(DENO, { args, cwd: ROOT }).outputSync();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const seen = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.deepEqual([seen.first, seen.second], ["old", "old"]);
  // before: the file was read again on every load (its mtime never 2 s in the past)
  assert.ok(seen.read < pad.length, `the unchanged file read again (${seen.read} bytes)`);
  assert.equal((await loadEndpoint("ep", { cwd: t.path, env })).settings.model, "old");
  writeFileSync(file, `${pad}model: new\n`); // same size, in place
  utimesSync(file, future, future);
  assert.equal((await loadEndpoint("ep", { cwd: t.path, env })).settings.model, "new");
});
