/**
 * `max_reply_tool_calls` (R95-4, renamed in R100-2): how many tool calls of one
 * reply run; each call after them gets an error output, so the paid reply and
 * every call/output pair are saved, and the model reads why. The
 * prompt-strategy `max_tool_calls` (`shorten_tools`) is another setting.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "../../src/chat/parse.ts";
import { MAX_REPLY_TOOL_CALLS } from "../../src/llm/ask_backend.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

const BAKING = join(import.meta.dirname!, "../../fixtures/workflows/Baking");

/** One reply of `n` calls to `name`, then an answer. */
async function flood(n: number, name: string) {
  let first = true;
  return await startProviderServer({
    fallback: () => {
      if (!first) return { text: "done" };
      first = false;
      return {
        toolCalls: Array.from({ length: n }, (_, i) => ({
          name,
          id: `c${i}`,
          arguments: { minutes: i % 3 },
        })),
      };
    },
  });
}

async function ask(dir: string, url: string, env: Record<string, string> = {}, head = "") {
  writeFileSync(join(dir, "c.chat"), `${head}tool: ${BAKING} cake\n\nuser:\n\nbake\n`);
  const r = await runMain(
    ["llm", "ask", "-c", "c.chat", "-o", "c.chat", "-b", "openai", "-O", `url=${url}`, "-m", "m"],
    { env: { SCOUT_HOME: join(dir, "home"), OPENAI_API_KEY: "sk-x", ...env }, cwd: dir },
  );
  assert.equal(r.code, 0, r.stderr);
  const outputs = parse(readFileSync(join(dir, "c.chat"), "utf8"))
    .filter((m) => m.role === "function_call_output")
    .map((m) => JSON.parse(String(m.content)));
  return { stderr: r.stderr, outputs };
}

Deno.test("SCOUT_MAX_REPLY_TOOL_CALLS=3: a reply of 5 workflow calls runs 3; the other 2 are error outputs, all saved", async () => {
  await using d = await tempDir();
  await using srv = await flood(5, "cake");
  const { stderr, outputs } = await ask(d.path, srv.url, { SCOUT_MAX_REPLY_TOOL_CALLS: "3" });
  assert.equal(outputs.length, 5);
  assert.deepEqual(outputs.map((o) => o.error ?? "ok"), ["ok", "ok", "ok", "error", "error"]);
  assert.match(outputs[0]!.content, /^Cake /);
  assert.match(
    JSON.parse(outputs[4]!.content).exception,
    /^Tool call not run: the reply made 5 tool calls, more than max_reply_tool_calls \(3\)/,
  );
  assert.equal(stderr.match(/max_reply_tool_calls/g)?.length, 1, stderr);
  // the model was told: the second request carries the five outputs
  assert.equal(srv.requests.length, 2);
});

Deno.test("max_reply_tool_calls defaults to 256 (Ruby has no bound): call 257 is not run", async () => {
  assert.equal(MAX_REPLY_TOOL_CALLS, 256);
  await using d = await tempDir();
  await using srv = await flood(258, "nothere");
  const { outputs } = await ask(d.path, srv.url);
  assert.equal(outputs.length, 258);
  const text = (o: { content: string }) => String(JSON.parse(o.content).exception);
  assert.doesNotMatch(text(outputs[255]!), /not run/);
  assert.match(text(outputs[256]!), /more than max_reply_tool_calls \(256\)/);
});

Deno.test("option: max_tool_calls 2 with shorten_tools runs all 4 calls of a reply: it is the prompt strategy's setting (R100-2)", async () => {
  await using d = await tempDir();
  await using srv = await flood(4, "cake");
  const head = "option: prompt_strategies shorten_tools\noption: max_tool_calls 2\n";
  const { stderr, outputs } = await ask(d.path, srv.url, {}, head);
  assert.deepEqual(outputs.map((o) => o.error ?? "ok"), ["ok", "ok", "ok", "ok"]);
  assert.doesNotMatch(stderr, /not run/);
  // and it is not sent to the provider as a parameter
  assert.equal(srv.requests[0]!.body.max_tool_calls, undefined);
});

Deno.test("option: max_reply_tool_calls 1 caps a reply's calls; SCOUT_MAX_TOOL_CALLS / MAX_TOOL_CALLS do not (R100-2)", async () => {
  await using d = await tempDir();
  await using srv = await flood(3, "cake");
  const env = { SCOUT_MAX_TOOL_CALLS: "1", MAX_TOOL_CALLS: "1" };
  const free = await ask(d.path, srv.url, env);
  assert.deepEqual(free.outputs.map((o) => o.error ?? "ok"), ["ok", "ok", "ok"]);
  // another home: the first ask's cached reply is not replayed
  await using d2 = await tempDir();
  await using srv2 = await flood(3, "cake");
  const capped = await ask(d2.path, srv2.url, {}, "option: max_reply_tool_calls 1\n");
  assert.deepEqual(capped.outputs.map((o) => o.error ?? "ok"), ["ok", "error", "error"]);
});

Deno.test("a reply of 130,000 calls is answered and saved: its messages are not spread as arguments (stack overflow)", async () => {
  await using d = await tempDir();
  await using srv = await flood(130_000, "nothere");
  const { outputs } = await ask(d.path, srv.url);
  assert.equal(outputs.length, 130_000);
  assert.equal(srv.requests.length, 2);
});
