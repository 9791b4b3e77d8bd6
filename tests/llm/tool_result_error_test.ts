/**
 * A failed tool call's output tells Anthropic so (R113-4, [TS-FIX]; Ruby never
 * does): its `tool_result` carries `is_error: true` (Anthropic's API and
 * Bedrock's InvokeModel), Converse's `toolResult` `status: "error"`. An output
 * of `error: "error"` is a failure; a result cut by the length guard
 * (`error: "truncated"`: the call ran) and a plain result are not. Asked
 * against the loopback provider, which records the bodies.
 */
import assert from "node:assert/strict";
import type { Message } from "../../src/chat/types.ts";
import { ask, type AskOptions } from "../../src/llm/ask.ts";
import { toolRegistry } from "../../src/tools/registry.ts";
import { TEST_AWS } from "../support/bedrock_protocol.ts";
import { tempDir } from "../support/cli.ts";
import { type ProviderServer, startProviderServer } from "../support/provider_server.ts";
import { opts } from "./ask_support.ts";

type Block = Record<string, unknown>;
type Turn = { role: string; content: Block[] };

function bedrock(srv: ProviderServer, home: string, model: string): AskOptions {
  return {
    ...opts(srv, "bedrock", home),
    model,
    env: {
      SCOUT_HOME: home,
      AWS_ACCESS_KEY_ID: TEST_AWS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: TEST_AWS.secretAccessKey,
      AWS_REGION: TEST_AWS.region,
    },
  };
}

/** Anthropic's API, Bedrock InvokeModel (Anthropic bodies), Bedrock Converse. */
const ROUTES: Record<string, (srv: ProviderServer, home: string) => AskOptions> = {
  anthropic: (srv, home) => opts(srv, "anthropic", home),
  "bedrock invoke": (srv, home) => bedrock(srv, home, "anthropic.claude-sonnet-4-5-v1:0"),
  "bedrock converse": (srv, home) => bedrock(srv, home, "amazon.nova-pro-v1:0"),
};

/** The tool results of a request body, each as `{id, error}` (error: is_error / status). */
function results(route: string, body: Record<string, unknown>) {
  const blocks = (body.messages as Turn[]).flatMap((t) => t.content);
  if (route === "bedrock converse") {
    return blocks.filter((b) => b.toolResult).map((b) => {
      const r = b.toolResult as Block;
      return { id: r.toolUseId, error: r.status };
    });
  }
  return blocks.filter((b) => b.type === "tool_result").map((b) => ({
    id: b.tool_use_id,
    error: b.is_error,
  }));
}

const failing = () =>
  toolRegistry({
    lookup: [() => {
      throw new Error("the egg store is closed");
    }, {
      name: "lookup",
      parameters: { type: "object", properties: { q: { type: "string" } } },
    }],
  });

for (const [route, options] of Object.entries(ROUTES)) {
  const failed = route === "bedrock converse" ? "error" : true;

  Deno.test(`${route}: a tool call that failed is sent back marked as an error [TS-FIX]`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    srv.script(
      { toolCalls: [{ name: "lookup", arguments: { q: "eggs" }, id: "tu_1" }] },
      { text: "The store is closed." },
    );
    const r = await ask([{ role: "user", content: "How many eggs?" }], {
      ...options(srv, home.path),
      tools: failing(),
    });
    assert.equal(r.text, "The store is closed.");
    assert.equal(srv.requests.length, 2);
    assert.deepEqual(results(route, srv.requests[1]!.body), [{ id: "tu_1", error: failed }]);
    assert.match(JSON.stringify(srv.requests[1]!.body), /the egg store is closed/);
  });

  Deno.test(`${route}: of a chat's outputs only error:"error" ones are marked (not a truncated or plain result)`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    srv.script({ text: "ok" });
    const pair = (id: string, content: string, error?: string): Message[] => [
      { role: "function_call", content: JSON.stringify({ name: "lookup", arguments: {}, id }) },
      {
        role: "function_call_output",
        content: JSON.stringify({ name: "lookup", content, id, ...(error ? { error } : {}) }),
      },
    ];
    const chat: Message[] = [
      { role: "user", content: "How many eggs?" },
      ...pair("c1", JSON.stringify({ exception: "boom", exception_line: null }), "error"),
      ...pair("c2", JSON.stringify({ exception: "too long", stack: [] }), "truncated"),
      ...pair("c3", "four"),
    ];
    await ask(chat, options(srv, home.path));
    assert.deepEqual(results(route, srv.requests[0]!.body), [
      { id: "c1", error: failed },
      { id: "c2", error: undefined },
      { id: "c3", error: undefined },
    ]);
  });
}
