/**
 * Names spelled like Object.prototype members through the binary (Bun) and
 * from source (Deno), end to end against the loopback provider (R112-5
 * follow-up): a chat's `option:` lines and `-O` flags called `__proto__`
 * reach the provider (the OpenAI body, Ollama's `options`), as does an
 * agent's start-chat option line; a workflow's tasks called `__proto__`,
 * `constructor`, `toString` run from `workflow task`, a chat's `task:` line
 * and a model's tool call. Bun keeps Object.prototype's `__proto__` setter,
 * which Deno drops: in the binary each was lost.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { buildBinary, type CliResult, runBinary, runScout, tempDir } from "../support/cli.ts";
import { put } from "../support/files.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { userWorkflow } from "../workflow/cli_support.ts";

type Run = (args: string[], opts: { env: Record<string, string>; cwd: string }) => Promise<
  CliResult
>;
const RUNS: [string, Run][] = [["binary", runBinary], ["source", runScout]];

/** A fresh home `<dir>/<name>` and its env. */
function home(dir: string, name: string) {
  const path = join(dir, name);
  mkdirSync(path, { recursive: true });
  const env = { SCOUT_HOME: path, HOME: path, NO_COLOR: "1", OPENAI_API_KEY: "sk-test" };
  return { path, env };
}

Deno.test("binary and source: option lines, -O flags and start-chat lines called __proto__ reach the provider", async () => {
  await buildBinary();
  await using d = await tempDir();
  await using srv = await startProviderServer();
  for (const [name, run] of RUNS) {
    const h = home(d.path, name);
    const ask = async (args: string[]) => {
      const from = srv.requests.length;
      const r = await run([...args, "--no-cache"], { env: h.env, cwd: h.path });
      assert.equal(r.code, 0, `${name}: ${r.stderr}`);
      assert.equal(r.stdout, "ok\n", name);
      return srv.requests[from]!.body;
    };
    put(
      h.path,
      "q.chat",
      'option: __proto__ x\n\nsticky_option: constructor y\n\nformat: {"__proto__": "string"}\n\n' +
        "user:\n\nhi\n",
    );
    const url = ["-O", `url=${srv.url}`, "-m", "m"];
    srv.script({ text: "ok" }, { text: "ok" }, { text: "ok" });
    // before, in the binary: none of them sent
    const chat = await ask(["llm", "ask", "-c", "q.chat", "-b", "openai", ...url]);
    assert.ok(Object.hasOwn(chat, "__proto__"), name);
    assert.equal(chat["__proto__"], "x", name);
    assert.equal(chat.constructor, "y", name);
    const format = chat.response_format as { json_schema: { schema: { properties: object } } };
    assert.deepEqual(Object.keys(format.json_schema.schema.properties), ["__proto__"], name);
    const flag = await ask(["llm", "ask", "-b", "ollama", ...url, "-O", "__proto__=z", "hi"]);
    assert.deepEqual(flag.options, JSON.parse('{"__proto__": "z"}'), name);
    put(
      h.path,
      "Agent/Proto/start_chat",
      `system: s\n\nbackend: openai\n\nmodel: m\n\noption: url ${srv.url}\n\noption: __proto__ a\n`,
    );
    const agent = await ask(["agent", "ask", "Proto", "hi"]);
    assert.equal(agent["__proto__"], "a", name);
  }
});

const WORKFLOW = `export default (api) => api.workflow("PT", { tasks: {
  ["__proto__"]: { type: "string", inputs: { x: api.input.string({ default: "d" }) },
    run: ({ x }) => "proto " + x },
  constructor: { type: "string", run: () => "ctor" },
  toString: { type: "string", deps: ["__proto__", "constructor"],
    run: async (_i, job) => (await job.load("__proto__")) + " " + (await job.load("constructor")) },
}, exports: { exec: ["__proto__", "constructor", "toString"] } });
`;

Deno.test("binary and source: tasks called __proto__, constructor, toString run as any", async () => {
  await buildBinary();
  await using d = await tempDir();
  await using srv = await startProviderServer();
  for (const [name, run] of RUNS) {
    const h = home(d.path, name);
    userWorkflow(h.path, "PT", WORKFLOW);
    const cli = async (...args: string[]) => {
      const r = await run(args, { env: h.env, cwd: h.path });
      assert.equal(r.code, 0, `${name}: ${r.stderr}`);
      return r.stdout;
    };
    // before, in the binary: `Exported task "__proto__" not found in workflow "PT"`
    assert.equal(await cli("workflow", "task", "PT", "toString"), "proto d ctor\n", name);
    assert.equal(await cli("workflow", "task", "PT", "__proto__", "--x", "e"), "proto e\n", name);
    put(h.path, "q.chat", "tool: PT __proto__\n\ntask: PT __proto__ x=chat\n\nuser:\n\nGo\n");
    srv.script(
      { toolCalls: [{ name: "__proto__", arguments: { x: "tool" }, id: "call_1" }] },
      { text: "Done." },
    );
    const from = srv.requests.length;
    const url = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--no-cache"];
    assert.equal(await cli("llm", "ask", "-c", "q.chat", ...url), "Done.\n", name);
    const sent = srv.requests[from + 1]!.body.messages as { role: string; content: string }[];
    const outputs = sent.filter((m) => m.role === "tool").map((m) => m.content);
    assert.deepEqual(outputs, ["proto chat", "proto tool"], name);
    // a task written `__proto__: …` names none: refused, in both
    userWorkflow(
      h.path,
      "PL",
      WORKFLOW.replace('["__proto__"]:', "__proto__:").replace('"PT"', '"PL"'),
    );
    const refused = await run(["workflow", "task", "PL", "constructor"], {
      env: h.env,
      cwd: h.path,
    });
    assert.equal(refused.code, 1, name);
    assert.match(
      refused.stderr,
      /^scout-ai: Workflow file ".*PL\/workflow\.ts" failed while defining its workflow: The tasks of workflow "PL" are written with `__proto__: …`, which names none/,
      name,
    );
    assert.equal(refused.stderr.split("\n").length, 2, name); // one line
  }
});
