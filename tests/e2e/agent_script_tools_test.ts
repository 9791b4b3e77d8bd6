/**
 * An `agent.ts` adds a tool of its own with what its API gives (R165-2):
 * `api.defineTool` (a zod schema from `api.z`), `api.addTool`, and
 * `api.specialistCall` for a tool that has another agent answer. The built
 * binary cannot import the package, so the API object is the only way; run
 * as the binary and from source against the loopback provider, with the same
 * bytes on stdout.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { buildBinary, type CliResult, runBinary, runScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { put } from "../support/files.ts";

function agents(root: string, url: string): void {
  put(
    root,
    "Agent/Boss/start_chat",
    "system: You are the boss\n\nbackend: openai\n\nmodel: boss-model\n",
  );
  put(
    root,
    "Agent/Boss/agent.ts",
    `export default async (api, boss) => {
  boss.options.url = "${url}";
  const expert = await api.loadAgent("Expert");
  expert.options.url = "${url}";
  api.addTool(boss, api.defineTool({
    name: "consult",
    description: "Asks the Expert a question",
    schema: api.z.object({ question: api.z.string() }),
    run: ({ question }) => ({ agent: api.specialistCall(expert, question) }),
  }));
  api.addTool(boss, api.defineTool({
    name: "add",
    description: "Adds two numbers",
    schema: api.z.object({ a: api.z.number(), b: api.z.number() }),
    run: ({ a, b }) => String(a + b),
  }));
};
`,
  );
  put(
    root,
    "Agent/Expert/start_chat",
    `system: You are the expert\n\nbackend: openai\n\nmodel: expert-model\n`,
  );
}

type Req = { body: { model?: unknown; messages?: { role: string; content: unknown }[] } };
const toolOutputs = (r: Req) =>
  (r.body.messages ?? []).filter((m) => m.role === "tool").map((m) => m.content);

Deno.test("agent.ts adds its own tools with api.defineTool/addTool/specialistCall: binary and source", async () => {
  await buildBinary();
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  agents(dir.path, srv.url);
  const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "sk-e2e" };
  const results: CliResult[] = [];
  for (const run of [runBinary, runScout]) {
    const before = srv.requests.length;
    srv.script(
      {
        toolCalls: [
          { name: "add", arguments: { a: 2, b: 3 }, id: "call_1" },
          { name: "consult", arguments: { question: "What is the answer?" }, id: "call_2" },
        ],
      },
      { text: "42" },
      { text: "2 + 3 = 5, and the answer is 42." },
    );
    const r = await run(["agent", "ask", "Boss", "--no-cache", "go"], { env, cwd: dir.path });
    results.push(r);
    assert.equal(r.code, 0, r.stderr);
    const [first, expert, last] = srv.requests.slice(before) as unknown as Req[];
    assert.equal(first!.body.model, "boss-model");
    assert.equal(expert!.body.model, "expert-model");
    const asked = expert!.body.messages!.filter((m) => m.role === "user").map((m) => m.content);
    assert.deepEqual(asked, ["What is the answer?"]);
    assert.equal(last!.body.model, "boss-model");
    assert.deepEqual(toolOutputs(last!), ["5", "42"]);
  }
  const [bin, src] = results as [CliResult, CliResult];
  assert.equal(bin.stdout, "2 + 3 = 5, and the answer is 42.\n");
  assert.equal(src.stdout, bin.stdout);
  assert.equal(bin.stderr, "");
});

Deno.test("api.addTool refuses what is no tool entry, naming defineTool", async () => {
  await buildBinary();
  await using dir = await tempDir();
  put(dir.path, "Agent/Odd/start_chat", "system: odd\n");
  put(
    dir.path,
    "Agent/Odd/agent.ts",
    `export default (api, a) => { api.addTool(a, { name: "x" }); };\n`,
  );
  const r = await runBinary(["agent", "ask", "Odd", "go"], {
    env: { SCOUT_HOME: join(dir.path, "home") },
    cwd: dir.path,
  });
  assert.equal(r.code, 1, r.stdout);
  assert.match(r.stderr, /addTool\(agent, tool\) takes a tool entry .*defineTool/);
});
