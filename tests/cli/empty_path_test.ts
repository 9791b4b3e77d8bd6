/**
 * An empty path is a usage error naming it, not the working directory
 * (R164-2): `llm process "$RELAY_DIR"` with the variable unset moved the
 * working directory's `package.json` into `failed/`; and a queue worker
 * takes only files named as requests are (`<md5 hex>.json`), so a directory
 * given by mistake keeps its files.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { md5hex } from "../../src/util/hash.ts";
import { runMain, runScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { workerHome } from "../support/relay_worker.ts";

const names = (dir: string) => [...Deno.readDirSync(dir)].map((e) => e.name).sort();
const USER_FILE = '{"my":"data"}\n';

for (const kind of ["process", "process_queries"]) {
  Deno.test(`llm ${kind} '': a usage error naming DIR; the working directory is untouched (R164-2)`, async () => {
    await using d = await tempDir();
    const cwd = join(d.path, "w");
    await Deno.mkdir(cwd);
    await Deno.writeTextFile(join(cwd, "package.json"), USER_FILE);
    const r = await runScout(["llm", kind, "--once", ""], {
      cwd,
      env: { SCOUT_HOME: join(d.path, "home"), HOME: d.path },
    });
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /^scout-ai: Missing DIR: "" names no directory \(an unset shell variable\?\)\n/,
    );
    assert.deepEqual(names(cwd), ["package.json"]);
    assert.equal(await Deno.readTextFile(join(cwd, "package.json")), USER_FILE);
  });
}

Deno.test("every path option or argument given '' is a usage error naming it (R164-2)", async () => {
  await using d = await tempDir();
  const env = { SCOUT_HOME: join(d.path, "home"), HOME: d.path };
  const cases: [string[], string][] = [
    [["workflow", "task", "Baking", "cake", "--jobs-dir", ""], "--jobs-dir"],
    [["workflow", "task", "Baking", "cake", "--deploy", "slurm", "--batch-dir", ""], "--batch-dir"],
    [["workflow", "batch", "clean", "--batch-dir", ""], "--batch-dir"],
    [["workflow", "info", "x", "--jobs-dir", ""], "--jobs-dir"],
    [["system", "clean", "all", "--jobs-dir", ""], "--jobs-dir"],
    [["llm", "ask", "-o", "", "hi"], "--output"],
    [["llm", "ask", "-c", "", "hi"], "--chat"],
    [["agent", "ask", "-f", "", "a", "hi"], "--file"],
    [["llm", "json", "-o", "", "-"], "--output"],
    [["llm", "prov", "--dot", "", "x.chat"], "--dot"],
    [["kb", "list", ""], "KB-DIR"],
    [["chat", "parse", ""], "FILE"],
  ];
  for (const [args, name] of cases) {
    const r = await runMain(args, { env, cwd: d.path, stdin: "" });
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.ok(r.stderr.startsWith(`scout-ai: Missing ${name}: "" names no `), r.stderr);
  }
  assert.deepEqual(names(d.path), [], "nothing was written to the working directory");
});

Deno.test("llm process takes only <md5 hex>.json: other files stay where they are, said once (R164-2)", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  const env = await workerHome(dir.path, srv);
  const queue = join(dir.path, "queue");
  await Deno.mkdir(queue);
  await Deno.writeTextFile(join(queue, "package.json"), USER_FILE);
  const id = md5hex("a request");
  await Deno.writeTextFile(join(queue, `${id}.json`), JSON.stringify({ question: "user: hi" }));
  srv.script({ text: "hello" });
  const w = await runMain(["llm", "process", "--once", queue], { env, cwd: dir.path });
  assert.equal(w.code, 0, w.stderr);
  assert.equal(
    w.stderr,
    "process: left package.json in place: not a request (<md5 hex>.json)\n" +
      `process: answered ${id}\n` + // a line per request, terminal or not (R167-9)
      `process: 1 answered, 0 failed (${queue})\n`,
  );
  assert.equal(await Deno.readTextFile(join(queue, "package.json")), USER_FILE);
  assert.equal(await Deno.readTextFile(join(queue, "reply", `${id}.json`)), '"hello"');
  assert.deepEqual(names(join(queue, "failed")), []);
});

Deno.test("llm process on a directory without requests creates nothing in it (R164-2)", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "package.json"), USER_FILE);
  const env = { SCOUT_HOME: join(dir.path, "home"), HOME: dir.path };
  const w = await runMain(["llm", "process_queries", "--once", "."], { env, cwd: dir.path });
  assert.equal(w.code, 0, w.stderr);
  assert.deepEqual(names(dir.path), ["package.json"]);
});
