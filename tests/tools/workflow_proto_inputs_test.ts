/**
 * A workflow tool whose inputs are named like Object.prototype members, called
 * by a model through the loopback provider (R112-5 follow-up): the definition
 * sent lists them all; a call without them runs with them null or their
 * default (not "must be string, got function"), a call with them runs with
 * the values the model sent, `__proto__` included.
 */
import assert from "node:assert/strict";
import type { Message } from "../../src/chat/types.ts";
import { ask } from "../../src/llm/ask.ts";
import { newSession } from "../../src/llm/meta_record.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { tempDir } from "../support/cli.ts";
import { PROTO_GIVEN, PROTO_NONE, protoWorkflowText } from "../support/proto_workflow.ts";
import { env, userWorkflow } from "../workflow/cli_support.ts";

/** The arguments a model sends for every input of `t` (what `PROTO_ARGS` gives on a command line). */
const ARGUMENTS = {
  toString: "a",
  ["__proto__"]: { polluted: true },
  hasOwnProperty: 2,
  constructor: "c",
  valueOf: "w",
};

Deno.test("a model calls a workflow tool with inputs called toString, __proto__…, sent or not", async () => {
  await using d = await tempDir();
  await using srv = await startProviderServer();
  userWorkflow(d.path, "ProtoTool", protoWorkflowText("ProtoTool"));
  srv.script(
    { toolCalls: [{ name: "t", arguments: {}, id: "call_1" }] },
    { toolCalls: [{ name: "t", arguments: ARGUMENTS, id: "call_2" }] },
    { text: "Done." },
  );
  const chat: Message[] = [
    { role: "tool", content: "ProtoTool t" },
    { role: "user", content: "Run it twice" },
  ];
  const r = await ask(chat, {
    backend: "openai",
    url: srv.url,
    model: "m",
    key: "sk-test",
    env: env(d.path),
    cwd: d.path,
    config: { entries: [] },
    session: newSession(),
  });
  assert.equal(r.text, "Done.");
  const tools = srv.requests[0]!.body.tools as { function: { parameters: unknown } }[];
  const params = tools[0]!.function.parameters as { properties: Record<string, unknown> };
  assert.deepEqual(Object.keys(params.properties), [
    "toString",
    "__proto__",
    "hasOwnProperty",
    "constructor",
    "valueOf",
    "return_path",
  ]);
  const outs = r.messages.filter((m) => m.role === "function_call_output").map((m) =>
    JSON.parse(String(m.content))
  );
  // before: Invalid arguments for 't': "toString" must be string, got function; …
  assert.equal(outs[0].error, undefined, outs[0].content);
  assert.deepEqual(JSON.parse(outs[0].content), PROTO_NONE);
  assert.equal(outs[0].step, "ProtoTool/t/Default.json");
  assert.equal(outs[1].error, undefined, outs[1].content);
  assert.deepEqual(JSON.parse(outs[1].content), PROTO_GIVEN);
  assert.match(outs[1].step, /^ProtoTool\/t\/Default_[0-9a-f]{32}\.json$/);
});
