/**
 * OpenWebUI gives its calls no ids; the id made from the name and the
 * arguments is made unique within a reply (R83-12), as Ollama's is, so two
 * identical parallel calls keep their outputs apart.
 */
import assert from "node:assert/strict";
import { ask } from "../../src/llm/ask.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { tempDir } from "../support/cli.ts";
import { echoTool, opts, question } from "./ask_support.ts";

Deno.test("openwebui: identical parallel calls without ids get distinct ids, each output paired", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  const call = { type: "function", function: { name: "lookup", arguments: '{"q":"eggs"}' } };
  srv.script(
    {
      raw: {
        id: "owui-1",
        choices: [{
          message: { role: "assistant", content: null, tool_calls: [call, call] },
          finish_reason: "tool_calls",
        }],
      },
    },
    { text: "two lookups" },
  );
  const r = await ask(
    question,
    opts(srv, "openwebui", home.path, { url: `${srv.url}/api`, tools: echoTool() }),
  );
  assert.equal(r.text, "two lookups");
  const ids = (role: string) =>
    r.messages.filter((m) => m.role === role).map((m) => JSON.parse(String(m.content)).id);
  const [first, second] = ids("function_call");
  assert.match(first, /^lookup_[0-9a-f]{32}$/);
  assert.equal(second, `${first}_1`);
  assert.deepEqual(ids("function_call_output"), [first, second]);
  const sent = (srv.requests[1]!.body.messages as Record<string, unknown>[])
    .filter((m) => m.role === "tool").map((m) => m.tool_call_id);
  assert.deepEqual(sent, [first, second]);
});
