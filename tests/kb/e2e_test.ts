/**
 * Knowledge bases end to end, from source and as the built binary: `kb`
 * commands print the same bytes, and `llm ask` with a `kb:` line offers the
 * databases as tools to the loopback provider, which calls one; the tool's
 * answer reaches the model and the chat file records the call.
 */
import assert from "node:assert/strict";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildBinary, type CliResult, ROOT, runBinary, runScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

const FAMILY = join(ROOT, "fixtures", "kb", "family");

Deno.test("binary and source: kb register/list/query give the same bytes; errors are one line", async () => {
  await buildBinary();
  await using d = await tempDir();
  const cases = [
    ["kb", "register", "kb", "parents", join(FAMILY, "parents")],
    ["kb", "register", "kb", "siblings", join(FAMILY, "siblings"), "--undirected"],
    ["kb", "list", "kb"],
    ["kb", "list", "kb", "--json"],
    ["kb", "query", "kb", "parents", "Ada", "Eva"],
    ["kb", "query", "kb", "parents", "Bruno", "--reverse", "--json"],
    ["kb", "query", "kb", "siblings", "Hugo"],
    ["kb", "query", "kb", "nope", "x"],
    ["kb", "query", "--help"],
  ];
  for (const args of cases) {
    const bin = await runBinary(args, { cwd: d.path });
    const src = await runScout(args, { cwd: d.path });
    assert.equal(bin.code, src.code, `${args.join(" ")}\n${bin.stderr}\n${src.stderr}`);
    assert.equal(bin.stdout, src.stdout, args.join(" "));
    assert.equal(bin.stderr, src.stderr, args.join(" "));
  }
  const q = await runBinary(["kb", "query", "kb", "parents", "Ada"], { cwd: d.path });
  assert.equal(q.stdout, "Ada~Bruno\tfather\nAda~Carla\tmother\n");
  const bad = await runBinary(["kb", "query", "kb", "nope", "x"], { cwd: d.path });
  assert.equal(bad.code, 1);
  assert.equal(bad.stderr.split("\n").length, 2);
});

Deno.test("llm ask with a kb: line: the model calls a database tool (source and binary)", async () => {
  await buildBinary();
  await using d = await tempDir();
  await using srv = await startProviderServer();
  cpSync(FAMILY, join(d.path, "family"), { recursive: true });
  const env = { SCOUT_HOME: join(d.path, "home"), OPENAI_API_KEY: "sk-kb" };
  const results: CliResult[] = [];
  for (const [i, run] of [runScout, runBinary].entries()) {
    const chat = join(d.path, `ask${i}.chat`);
    writeFileSync(chat, "kb: ./family parents\n\nuser: Who are Ada's parents?\n");
    srv.script(
      {
        toolCalls: [{
          name: "parents",
          arguments: { entities: '["Ada"]' },
          id: "call_kb",
        }],
      },
      {
        toolCalls: [{
          name: "parents_association_details",
          arguments: { associations: ["Ada~Carla"] },
          id: "call_d",
        }],
      },
      { text: "Bruno and Carla." },
    );
    const args = ["llm", "ask", "-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--no-cache"];
    const r = await run([...args, "-c", chat, "-o", chat], { env, cwd: d.path });
    assert.equal(r.code, 0, r.stderr);
    results.push(r);
    const saved = readFileSync(chat, "utf8");
    assert.match(saved, /function_call:/);
    assert.match(saved, /Ada~Bruno/);
  }
  for (const r of results) {
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "Bruno and Carla.\n");
  }
  assert.equal(results[0]!.stderr, results[1]!.stderr);
  assert.equal(srv.requests.length, 6);
  const tools = srv.requests[0]!.body.tools as { function: { name: string } }[];
  assert.deepEqual(tools.map((t) => t.function.name), ["parents", "parents_association_details"]);
  const toolMessages = (i: number) =>
    (srv.requests[i]!.body.messages as { role: string; content: string }[])
      .filter((m) => m.role === "tool").map((m) => m.content);
  assert.deepEqual(toolMessages(1), ['["Ada~Bruno","Ada~Carla"]']);
  assert.deepEqual(toolMessages(2), [
    '["Ada~Bruno","Ada~Carla"]',
    '{"Ada~Carla":{"Type of parent":"mother"}}',
  ]);
  assert.deepEqual(toolMessages(4), toolMessages(1));
});
