/**
 * The public `registerBackend` (mod.ts) end to end: a backend registered by a
 * library user, chosen by an endpoint file, answers through the real tool
 * loop; what it is sent is the contract `docs/adding-a-backend.md` describes
 * (tool calls and outputs as `function_call` / `function_call_output`
 * messages with JSON text content).
 */
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import {
  ask,
  type Backend,
  backendNames,
  type BackendRequest,
  defineTool,
  isScoutError,
  type Message,
  parseMeta,
  registerBackend,
  unregisterBackend,
} from "../../mod.ts";
import { tempDir } from "../support/cli.ts";

/** A backend that calls `add` once, then answers with what the tool returned. */
function scriptedBackend(seen: BackendRequest[]): Backend {
  return {
    defaults: { tag: "abacus", model: "abacus-1", keyEnv: ["ABACUS_KEY"], modelEnv: [] },
    query: (req, ctx) => {
      seen.push(structuredClone(req));
      const output = req.messages.find((m) => m.role === "function_call_output");
      if (output === undefined) {
        return Promise.resolve({
          id: "r1",
          usage: { input_tokens: 7, output_tokens: 2 },
          items: [{ type: "call", name: "add", arguments: { a: 2, b: 3 }, id: "c1" }],
        });
      }
      const result = JSON.parse(String(output.content)).content;
      const text = `${ctx.settings.model} says ${result}`;
      return Promise.resolve({
        id: "r2",
        usage: { input_tokens: 9, output_tokens: 4 },
        items: [{ type: "text", text }],
      });
    },
  };
}

Deno.test("registerBackend (mod.ts): a backend named in an endpoint file answers through the tool loop", async () => {
  await using home = await tempDir();
  await mkdir(join(home.path, "etc", "AI"), { recursive: true });
  await writeFile(
    join(home.path, "etc", "AI", "counter.yaml"),
    "backend: abacus\nmodel: abacus-2\n",
  );
  const seen: BackendRequest[] = [];
  registerBackend("abacus", scriptedBackend(seen));
  try {
    assert.ok(backendNames().includes("abacus"));
    const add = defineTool({
      name: "add",
      description: "Adds two numbers",
      schema: z.object({ a: z.number(), b: z.number() }),
      run: ({ a, b }) => String(a + b),
    });
    const question: Message[] = [{ role: "user", content: "What is 2 + 3?" }];
    const r = await ask(question, {
      endpoint: "counter",
      tools: { add },
      persist: false,
      env: { SCOUT_HOME: home.path },
      cwd: home.path,
      config: { entries: [] },
    });
    assert.equal(r.text, "abacus-2 says 5");
    // the second request carries the call and its output in the chat's own shape: JSON text
    assert.equal(seen.length, 2);
    assert.deepEqual(seen[0]!.tools.map((t) => (t.function as { name?: string })?.name), ["add"]);
    const tail = seen[1]!.messages.slice(-2);
    assert.deepEqual(tail.map((m) => m.role), ["function_call", "function_call_output"]);
    assert.equal(typeof tail[0]!.content, "string");
    assert.deepEqual(JSON.parse(String(tail[0]!.content)), {
      name: "add",
      arguments: { a: 2, b: 3 },
      id: "c1",
    });
    const out = JSON.parse(String(tail[1]!.content));
    assert.deepEqual([out.id, out.content], ["c1", "5"]);
    // the recorded turn: meta records name the backend and the endpoint's model, usage counted
    const metas = r.messages.filter((m) => m.role === "meta").map((m) =>
      parseMeta(String(m.content))
    );
    assert.equal(metas.length, 2);
    assert.deepEqual([metas[0]!.backend, metas[0]!.model, metas[0]!.endpoint], [
      "abacus",
      "abacus-2",
      "counter",
    ]);
    assert.equal(metas[1]!.tt_c, 22);
  } finally {
    assert.ok(unregisterBackend("abacus"));
  }
  await assert.rejects(
    () =>
      ask([{ role: "user", content: "again" }], {
        endpoint: "counter",
        persist: false,
        env: { SCOUT_HOME: home.path },
        cwd: home.path,
        config: { entries: [] },
      }),
    (e) => isScoutError(e, "unknown_backend") && /Unknown backend: "abacus"/.test(e.message),
  );
});
