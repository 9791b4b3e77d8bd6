/**
 * `scout-ai agent ask|find|list` as real processes — from source and as the
 * built binary — against the loopback provider: an agent directory with
 * `start_chat`, `workflow.ts` (a task the model calls as a tool) and
 * `agent.ts`, loaded at run time by both (the binary imports user files);
 * the same bytes on stdout; explicit `-m` beating the start chat's `model:`.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { buildBinary, type CliResult, runBinary, runScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { put } from "../support/files.ts";

function agentDir(root: string, url: string): void {
  put(
    root,
    "Agent/Chef/start_chat",
    `system: You are a chef\n\nbackend: openai\n\nmodel: chef-model\n`,
  );
  put(
    root,
    "Agent/Chef/workflow.ts",
    `export default (api) => api.workflow("Chef", {
  tasks: {
    oven: {
      type: "string",
      description: "Oven temperature for a dish",
      inputs: { dish: api.input.string({ required: true, description: "Dish" }) },
      run: ({ dish }) => dish + ": 180C",
    },
  },
});\n`,
  );
  put(
    root,
    "Agent/Chef/agent.ts",
    `export default (_api, agent) => { agent.options.url = "${url}"; };\n`,
  );
}

Deno.test("agent ask end to end: binary and source give the same bytes, with a workflow tool and agent.ts", async () => {
  await buildBinary();
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  agentDir(dir.path, srv.url);
  const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "sk-e2e" };
  const results: CliResult[] = [];
  for (const run of [runBinary, runScout]) {
    srv.script(
      { toolCalls: [{ name: "oven", arguments: { dish: "bread" }, id: "call_1" }] },
      { text: "Bake the bread at 180C." },
    );
    results.push(
      await run(["agent", "ask", "Chef", "--no-cache", "How hot for bread?"], {
        env,
        cwd: dir.path,
      }),
    );
  }
  const [bin, src] = results as [CliResult, CliResult];
  assert.equal(bin.code, 0, bin.stderr);
  assert.equal(src.code, 0, src.stderr);
  assert.equal(bin.stdout, "Bake the bread at 180C.\n");
  assert.equal(src.stdout, bin.stdout);
  assert.equal(bin.stderr, "");
  assert.equal(srv.requests.length, 4);
  for (const [i, req] of srv.requests.entries()) {
    assert.equal(req.body.model, "chef-model");
    const tools = req.body.tools as { function: { name: string } }[];
    assert.deepEqual(tools.map((x) => x.function.name), ["oven"]);
    if (i % 2 === 1) {
      const msgs = req.body.messages as { role: string; content: unknown }[];
      assert.equal(msgs.find((m) => m.role === "tool")?.content, "bread: 180C");
    }
  }
});

Deno.test("agent ask binary: -m beats the start chat's model:, find/list work, errors are one line", async () => {
  await buildBinary();
  await using dir = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "ok" }) });
  agentDir(dir.path, srv.url);
  const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "sk-e2e" };
  const o = { env, cwd: dir.path };
  const r = await runBinary(["agent", "ask", "Chef", "-m", "cli-model", "--no-cache", "hi"], o);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(srv.requests.at(-1)!.body.model, "cli-model");
  const f = await runBinary(["agent", "find", "Chef"], o);
  assert.equal(f.stdout, join(dir.path, "Agent", "Chef") + "\n");
  const l = await runBinary(["agent", "list"], o);
  assert.match(l.stdout, /^Chef {2}.*Agent\/Chef {2}\(start_chat, workflow\.ts, agent\.ts\)\n$/);
  const bad = await runBinary(["agent", "ask", "../x", "hi"], o);
  assert.equal(bad.code, 2); // no agent: a mistake of the command line (R94-4)
  assert.equal(
    bad.stderr,
    `scout-ai: No agent directory at "../x" (${join(dirname(dir.path), "x")})\n` +
      "(run with --help for usage)\n",
  );
  const usage = await runBinary(["agent", "ask"], o);
  assert.equal(usage.code, 2);
});
