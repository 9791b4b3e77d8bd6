/**
 * `llm ask --stream` as a real process, then `llm prov --json` of the saved
 * chat: the tokens the provider reported on a stream that was cut count —
 * a Chat Completions stream cut after its usage chunk (R93-1), and each
 * attempt of a retried stream that reported usage (R93-2), once each.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseMeta } from "../../src/chat/meta.ts";
import { parse } from "../../src/chat/parse.ts";
import { runScout, tempDir } from "../support/cli.ts";
import { type ProviderServer, startProviderServer } from "../support/provider_server.ts";

/** `llm ask` continuing and saving `file` in `cwd`, at `srv`. */
function ask(srv: ProviderServer, backend: string, cwd: string, file: string, ...rest: string[]) {
  const env = { SCOUT_HOME: join(cwd, "home"), OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "k" };
  const args = ["llm", "ask", "-b", backend, "-O", `url=${srv.url}`, "-m", "m1"];
  return runScout([...args, "-c", file, "-o", file, "--no-cache", "--stream", ...rest], {
    env,
    cwd,
  });
}

/** `llm prov --json` of `file`: its token totals. */
async function provTotal(cwd: string, file: string) {
  const r = await runScout(["llm", "prov", file, "--json"], {
    env: { SCOUT_HOME: join(cwd, "home") },
    cwd,
  });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout).totals.deduplicated_total;
}

/** The meta records of the saved chat. */
async function metas(path: string) {
  return parse(await Deno.readTextFile(path)).filter((m) => m.role === "meta")
    .map((m) => parseMeta(String(m.content)));
}

Deno.test("llm ask -b openai --stream cut after the usage chunk: the saved chat and llm prov count the 550 tokens (R93-1)", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ text: ["hi"], usage: { pt: 500, ct: 50 }, cutAfter: 4 });
  await Deno.writeTextFile(join(dir.path, "cut0.chat"), "user: hello\n");
  const r = await ask(srv, "openai", dir.path, "cut0.chat", "-O", "max_retries=0");
  assert.equal(r.code, 1, r.stderr);
  const [meta] = await metas(join(dir.path, "cut0.chat"));
  assert.equal(meta!.incomplete, "true");
  assert.equal(meta!.reason, "stream_cut");
  assert.deepEqual([meta!.pt_c, meta!.ct_c, meta!.tt_c], [500, 50, 550]);
  const total = await provTotal(dir.path, "cut0.chat");
  assert.deepEqual([total.pt, total.ct, total.tt], [500, 50, 550]);
});

for (const [backend, cutAfter] of [["anthropic", 6], ["openai", 4]] as const) {
  Deno.test(`llm ask -b ${backend} --stream retried after a cut that reported usage: the saved chat and llm prov count both attempts (R93-2)`, async () => {
    await using dir = await tempDir();
    await using srv = await startProviderServer();
    const usage = { pt: 500, ct: 50 };
    srv.script({ text: ["hi"], usage, cutAfter }, { text: "hi again", usage });
    await Deno.writeTextFile(join(dir.path, "cuta.chat"), "user: hello\n");
    const r = await ask(srv, backend, dir.path, "cuta.chat");
    assert.equal(r.code, 0, r.stderr);
    assert.equal(srv.requests.length, 2, r.stderr);
    assert.match(r.stderr, /ended early.*retrying in .* \(attempt 2\)/);
    assert.equal(r.stdout, "hi again\n");
    const saved = join(dir.path, "cuta.chat");
    const [cut, done] = await metas(saved);
    assert.deepEqual([cut!.incomplete, cut!.reason, cut!.tt_c], ["true", "stream_cut", 550]);
    assert.deepEqual([done!.incomplete, done!.tt_c], [undefined, 1100]);
    assert.notEqual(cut!.inference_id, done!.inference_id);
    const answers = parse(await Deno.readTextFile(saved)).filter((m) => m.role === "assistant");
    assert.deepEqual(answers.map((m) => m.content), ["hi again"]);
    const total = await provTotal(dir.path, "cuta.chat");
    assert.deepEqual([total.pt, total.ct, total.tt], [1000, 100, 1100]);
  });
}
