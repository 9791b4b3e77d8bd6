/**
 * The JSON the product writes for a user or another program holds no lone
 * surrogate escape (R162-1): a provider reply with one, or a task failing
 * with one in its message, gives U+FFFD in `llm ask --json`, `agent ask
 * --json`, `workflow task --json`, `workflow info --json` and the job's
 * `.info` — as plain output and chat files give it — so jq and Ruby read
 * them. The inference cache keeps the exact reply, and an offline replay is
 * byte-identical to the live run. Real `scout-ai` processes, the loopback
 * provider, and jq when installed.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runCommand, runMain, runScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { put } from "../support/files.ts";
import { env as wfEnv, userWorkflow } from "../workflow/cli_support.ts";

/** What the provider replies: two lone halves and a whole pair. */
const REPLY = "lone \ud83d half and \ude00 low \ud83d\ude00 end";
const SHOWN = "lone \ufffd half and \ufffd low \ud83d\ude00 end";

/** Every string of a JSON value, keys included. */
function strings(v: unknown): string[] {
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.flatMap(strings);
  if (v !== null && typeof v === "object") {
    return Object.entries(v).flatMap(([k, x]) => [k, ...strings(x)]);
  }
  return [];
}

let hasJq: boolean | null = null;

/**
 * Parses `text` as a strict reader does: `JSON.parse` takes a lone `\ud83d`
 * escape, so each string is checked well-formed too, and jq (when installed)
 * must read it.
 */
async function strictParse(text: string, what: string): Promise<unknown> {
  const v = JSON.parse(text);
  const bad = strings(v).filter((s) => !s.isWellFormed());
  assert.deepEqual(bad, [], `${what}: strings with a lone surrogate`);
  hasJq ??= await runCommand("jq", ["--version"], {}).then(() => true, () => false);
  if (hasJq) {
    const r = await runCommand("jq", ["."], { stdin: text });
    assert.equal(r.code, 0, `${what}: jq: ${r.stderr}`);
  }
  return v;
}

const PANTRY = `export default (api) => api.workflow("SurrPantry", {
  tasks: {
    stock: { type: "string", inputs: { item: api.input.string() }, run: ({ item }) => item + ": 4" },
  },
});`;

Deno.test("llm ask --json with replies holding lone surrogates is strict JSON; offline replay is byte-identical (R162-1)", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  const home = join(dir.path, "home");
  put(home, "etc/AI/oa.yaml", `backend: openai\nurl: ${srv.url}\nmodel: test-model\n`);
  userWorkflow(home, "SurrPantry", PANTRY);
  const o = { env: { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" }, cwd: dir.path };
  const chat = "tool: SurrPantry stock\n\nuser: SURR\n";
  put(dir.path, "live.chat", chat);
  put(dir.path, "rep.chat", chat);
  // the first round's text (lone halves) is in the second round's request, and so in its key
  srv.script(
    { text: REPLY, toolCalls: [{ name: "stock", arguments: { item: "eggs" }, id: "call_1" }] },
    { text: REPLY },
  );
  const ask = ["llm", "ask", "-e", "oa", "--json"];
  const live = await runScout([...ask, "-c", "live.chat", "-o", "live.chat"], o);
  assert.equal(live.code, 0, live.stderr);
  assert.equal(srv.requests.length, 2);
  const doc = await strictParse(live.stdout, "llm ask --json") as Record<string, unknown>;
  assert.equal(doc.answer, SHOWN);
  const msgs = doc.messages as { content: unknown }[];
  assert.equal(msgs.at(-1)!.content, SHOWN);
  // the cache keeps the replies exactly (read back by this program only)
  const cacheDir = join(home, "var", "cache", "ask");
  const entries = readdirSync(cacheDir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile()).map((e) => readFileSync(join(e.parentPath, e.name), "utf8"));
  assert.ok(entries.some((t) => t.includes("\\ud83d half")), "the cache keeps the exact reply");
  // replayed from the cache with the provider stopped: the same document and chat
  await srv.close();
  const rep = await runScout([...ask, "-c", "rep.chat", "-o", "rep.chat", "--offline"], o);
  assert.equal(rep.code, 0, rep.stderr);
  const norm = (s: string) => s.replaceAll('"cached": true', '"cached": false');
  assert.equal(norm(rep.stdout), norm(live.stdout.replaceAll("live.chat", "rep.chat")));
  const recorded = readFileSync(join(dir.path, "live.chat"), "utf8");
  assert.equal(readFileSync(join(dir.path, "rep.chat"), "utf8"), recorded);
  assert.ok(recorded.includes(SHOWN), recorded);
});

Deno.test("agent ask --json with a reply holding lone surrogates is strict JSON (R162-1)", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: REPLY }) });
  const home = join(dir.path, "home");
  put(home, "etc/AI/oa.yaml", `backend: openai\nurl: ${srv.url}\nmodel: test-model\n`);
  put(dir.path, "Agent/Ok/start_chat", "system: You answer\n\nendpoint: oa\n");
  const r = await runMain(["agent", "ask", "Ok", "--json", "--no-cache", "SURR"], {
    env: { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" },
    cwd: dir.path,
  });
  assert.equal(r.code, 0, r.stderr);
  const doc = await strictParse(r.stdout, "agent ask --json") as Record<string, unknown>;
  assert.equal(doc.answer, SHOWN);
});

const FAILING = `export default (api) => api.workflow("Surr", {
  tasks: {
    t: { type: "string", run: () => { throw api.fail("bad \\ud83d lone"); } },
  },
});`;

Deno.test("a task failing with a lone surrogate: workflow task/info --json and the .info are strict JSON (R162-1)", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Surr", FAILING);
  const o = { cwd: d.path, env: wfEnv(d.path) };
  const task = await runScout(["workflow", "task", "Surr", "t", "--jobname", "J", "--json"], o);
  assert.equal(task.code, 1, task.stderr);
  const doc = await strictParse(task.stdout, "workflow task --json") as Record<string, unknown>;
  assert.match(doc.error as string, /bad \ufffd lone$/);
  const path = doc.path as string;
  const info = await strictParse(readFileSync(path + ".info", "utf8"), ".info");
  assert.ok(strings(info).some((s) => s.includes("bad \ufffd lone")), JSON.stringify(info));
  const shown = await runScout(["workflow", "info", path, "--json"], o);
  assert.equal(shown.code, 0, shown.stderr);
  const infoDoc = await strictParse(shown.stdout, "workflow info --json");
  assert.ok(strings(infoDoc).some((s) => s.includes("bad \ufffd lone")), shown.stdout);
});
