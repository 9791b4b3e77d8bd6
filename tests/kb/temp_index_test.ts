/**
 * A read-only knowledge base queried with a read-only `$SCOUT_HOME` (R92-7):
 * a group's shared knowledge base on a read-only software tree, a container
 * with a read-only home. Neither place takes the index, so it is built in a
 * private temporary directory removed at exit, with one warning saying why;
 * when the temporary directory refuses it too, the error names all three
 * places. Both are really read-only (a read-only bind mount: EROFS, for root
 * too).
 */
import assert from "node:assert/strict";
import { cpSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { kbLineTools } from "../../src/tools/kb.ts";
import type { FunctionToolDefinition, ToolEntry } from "../../src/tools/types.ts";
import { sha256hex } from "../../src/util/hash.ts";
import { buildBinary, ROOT, runBinary, runMain, runScout, tempDir } from "../support/cli.ts";
import { readOnlyDir } from "../support/read_only_mount.ts";

const FAMILY = join(ROOT, "fixtures", "kb", "family");
const DATABASES = ["parents", "siblings", "marriages"];

/** A copy of the family knowledge base at `dir`, without an index. */
function copyFamily(dir: string): void {
  cpSync(FAMILY, dir, { recursive: true, filter: (s) => !s.includes(".scout-ai-index") });
}

/** Every path under `dir` with its size and modification time. */
function snapshot(dir: string): string[] {
  return readdirSync(dir, { recursive: true }).map(String).sort().map((p) => {
    const st = statSync(join(dir, p));
    return `${p} ${st.size} ${st.mtimeMs}`;
  });
}

/** A read-only knowledge base and home, a writable copy, and a writable temporary directory. */
async function places() {
  const ro = await readOnlyDir((p) => {
    copyFamily(join(p, "kb"));
    mkdirSync(join(p, "home"));
    mkdirSync(join(p, "tmp"));
  });
  const d = await tempDir();
  copyFamily(join(d.path, "kb"));
  mkdirSync(join(d.path, "tmp"));
  return {
    ro,
    d,
    kb: join(ro.path, "kb"),
    home: join(ro.path, "home"),
    tmp: join(d.path, "tmp"),
    writable: { kb: join(d.path, "kb"), env: { SCOUT_HOME: join(d.path, "home") } },
    [Symbol.asyncDispose]: async () => {
      await d[Symbol.asyncDispose]();
      await ro[Symbol.asyncDispose]();
    },
  };
}

/** The warning of a temporary index of database `db`. */
function warning(kb: string, home: string, db: string): string {
  return `cannot keep an index of "${kb}/${db}" ("${kb}": read-only file system; ` +
    `"${home}/var/cache/kb": read-only file system): built a temporary one, removed at exit`;
}

Deno.test("kb query and kb list answer on a read-only knowledge base and home (R92-7)", async () => {
  await using p = await places();
  const before = snapshot(p.ro.path);
  const env = { SCOUT_HOME: p.home, TMPDIR: p.tmp };
  const query = ["parents", "Ada", "Eva"];
  const want = await runScout(["kb", "query", p.writable.kb, ...query], { env: p.writable.env });
  assert.equal(want.code, 0, want.stderr);
  assert.equal(
    want.stdout,
    "Ada~Bruno\tfather\nAda~Carla\tmother\nEva~Fede\tfather\nEva~Gala\tmother\n",
  );
  const q = await runScout(["kb", "query", p.kb, ...query], { env });
  // before: exit 1, `scout-ai: Cannot create directory "…/home/var/cache/kb/<sha256>": read-only file system`
  assert.equal(q.code, 0, q.stderr);
  assert.equal(q.stdout, want.stdout);
  assert.equal(q.stderr, `scout-ai: warning: ${warning(p.kb, p.home, "parents")}\n`);
  assert.deepEqual(readdirSync(p.tmp), [], "the temporary index is removed at exit");

  const wantList = await runScout(["kb", "list", p.writable.kb], { env: p.writable.env });
  const list = await runScout(["kb", "list", p.kb], { env });
  assert.equal(list.code, 0, list.stderr);
  assert.equal(list.stdout, wantList.stdout);
  const lines = DATABASES.map((db) => `scout-ai: warning: ${warning(p.kb, p.home, db)}\n`);
  assert.equal(list.stderr, lines.join(""));
  assert.deepEqual(readdirSync(p.tmp), []);
  assert.deepEqual(snapshot(p.ro.path), before, "nothing written into the KB or SCOUT_HOME");
});

Deno.test("a kb: line's tools on a read-only knowledge base and home warn once, in a private directory", async () => {
  await using p = await places();
  const env = { SCOUT_HOME: p.home, TMPDIR: p.tmp };
  const warnings: string[] = [];
  const tools = kbLineTools([p.kb, "parents"], {
    env,
    cwd: p.d.path,
    warn: (m) => warnings.push(m),
  });
  const ok = kbLineTools([p.writable.kb, "parents"], { env: p.writable.env, cwd: p.d.path });
  const call = (entries: ToolEntry[], tool: string, args: Record<string, unknown>) =>
    entries.find((e) => (e.definition as FunctionToolDefinition).function.name === tool)!
      .impl!(tool, args, { id: "c1" });
  const asks: [string, Record<string, unknown>][] = [
    ["parents", { entities: ["Ada"] }],
    ["parents", { entities: ["Carla"], reverse: true }],
    ["parents_association_details", { associations: ["Ada~Bruno", "Eva~Gala"] }],
  ];
  for (const [tool, args] of asks) {
    assert.deepEqual(call(tools, tool, args), call(ok, tool, args), tool);
  }
  assert.deepEqual(warnings, [warning(p.kb, p.home, "parents")]);
  // this process's directory, 0700, holding the index until the process exits
  const [dir, ...more] = readdirSync(p.tmp);
  assert.deepEqual(more, []);
  assert.match(dir!, /^scout-ai-kb-/);
  assert.equal(statSync(join(p.tmp, dir!)).mode & 0o777, 0o700);
  assert.deepEqual(readdirSync(join(p.tmp, dir!), { recursive: true }).map(String).sort(), [
    sha256hex(p.kb),
    join(sha256hex(p.kb), "parents.idx"),
  ]);
});

Deno.test("when the temporary directory refuses the index too, the error names the three places", async () => {
  await using p = await places();
  const tmp = join(p.ro.path, "tmp");
  const env = { SCOUT_HOME: p.home, TMPDIR: tmp };
  const r = await runMain(["kb", "query", p.kb, "parents", "Ada"], { env });
  assert.equal(r.code, 1, r.stderr);
  assert.equal(
    r.stderr,
    `scout-ai: Cannot write an index of "${p.kb}/parents" anywhere: ` +
      `"${p.kb}": read-only file system; "${p.home}/var/cache/kb": read-only file system; ` +
      `temporary directory "${tmp}": read-only file system — set TMPDIR to a writable directory\n`,
  );
  assert.equal(r.stdout, "");
});

Deno.test("the binary answers on a read-only knowledge base and home, and removes its temporary index", async () => {
  await buildBinary();
  await using p = await places();
  const env = { SCOUT_HOME: p.home, TMPDIR: p.tmp };
  const r = await runBinary(["kb", "query", p.kb, "siblings", "Hugo"], { env });
  assert.equal(r.code, 0, r.stderr);
  const want = await runScout(["kb", "query", p.writable.kb, "siblings", "Hugo"], {
    env: p.writable.env,
  });
  assert.match(want.stdout, /^Hugo~/);
  assert.equal(r.stdout, want.stdout);
  assert.equal(r.stderr, `scout-ai: warning: ${warning(p.kb, p.home, "siblings")}\n`);
  assert.deepEqual(readdirSync(p.tmp), []);
});
