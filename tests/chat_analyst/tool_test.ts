/**
 * ChatAnalyst handed to a model: `tool: ChatAnalyst chat_tokens` in a chat
 * asked with `llm ask` against the loopback provider. The model calls the
 * task; the tool output it receives carries the totals.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runMain, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { parse } from "../../src/chat/parse.ts";

const FIX = join(ROOT, "fixtures/provenance/example");

Deno.test("llm ask with `tool: ChatAnalyst chat_tokens` calls the task and the model receives the totals", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "sk-test", NO_COLOR: "1" };
  const chat = join(dir.path, "audit.chat");
  await Deno.writeTextFile(
    chat,
    "tool: ChatAnalyst chat_tokens\n\nuser: what did session.chat cost?\n",
  );
  srv.script(
    {
      toolCalls: [{
        name: "chat_tokens",
        arguments: { file: join(FIX, "session.chat"), jobs_dir: [join(FIX, "jobs")] },
        id: "call_t1",
      }],
    },
    { text: "918 tokens in total." },
  );
  const r = await runMain(
    [
      "llm",
      "ask",
      "-b",
      "openai",
      "-O",
      `url=${srv.url}`,
      "-m",
      "m",
      "-c",
      chat,
      "-o",
      chat,
      "--no-cache",
    ],
    { env, cwd: dir.path },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "918 tokens in total.\n");
  // the first request offered the task as a tool, with its documented inputs
  const tools = (srv.requests[0]!.body as {
    tools: {
      function: {
        name: string;
        description: string;
        parameters: { properties: Record<string, unknown> };
      };
    }[];
  }).tools;
  assert.deepEqual(tools.map((t) => t.function.name), ["chat_tokens"]);
  assert.match(tools[0]!.function.description, /deduplicated_total is the cost/);
  assert.ok("file" in tools[0]!.function.parameters.properties);
  assert.ok(!("schema_version" in tools[0]!.function.parameters.properties));
  // the second request carries the task's result: the totals
  const msgs =
    (srv.requests[1]!.body as { messages: { role: string; content: string }[] }).messages;
  const out = msgs.find((m) => m.role === "tool")!;
  const result = JSON.parse(out.content);
  assert.equal(result.task, "chat_tokens");
  assert.deepEqual(result.totals.deduplicated_total, {
    pt: 760,
    ct: 158,
    tt: 918,
    cct: 0,
    cwt: 0,
    rt: 0,
  });
  // and the saved chat pairs the call with its output (the job's short path as step)
  const saved = parse(await Deno.readTextFile(chat));
  const output = JSON.parse(String(saved.find((m) => m.role === "function_call_output")!.content));
  assert.match(output.step, /^ChatAnalyst\/chat_tokens\/Default/);
});

Deno.test("`tool: ChatAnalyst` offers the exported analyses, not the internal walk", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "sk-test", NO_COLOR: "1" };
  const chat = join(dir.path, "audit.chat");
  await Deno.writeTextFile(chat, "tool: ChatAnalyst\n\nuser: hello\n");
  srv.script({ text: "hi" });
  const r = await runMain(
    ["llm", "ask", "-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "-c", chat, "--no-cache"],
    { env, cwd: dir.path },
  );
  assert.equal(r.code, 0, r.stderr);
  const tools = (srv.requests[0]!.body as { tools: { function: { name: string } }[] }).tools;
  assert.deepEqual(tools.map((t) => t.function.name).sort(), [
    "chat_agents",
    "chat_overview",
    "chat_report",
    "chat_tokens",
    "chat_tool_calls",
    "message_content",
    "message_index",
  ]);
});
