import assert from "node:assert/strict";
import { assembleTools } from "../../src/tools/assemble.ts";
import { shellWords } from "../../src/chat/tool_directives.ts";
import { parseToolCall } from "../../src/tools/calls.ts";
import { definitionName, normalizeDefinition, toolRegistry } from "../../src/tools/registry.ts";
import { isScoutError } from "../../src/errors.ts";

Deno.test("tool inputs: registry map, {name: [impl, def]}, {name: def}, arrays keyed by name → function.name → type", () => {
  const impl = () => "x";
  const a = toolRegistry({
    f: [impl, { name: "f" }],
    g: { type: "function", function: { name: "g" } },
  });
  assert.equal(a.get("f")!.impl, impl);
  assert.equal(a.get("g")!.impl, undefined);
  const b = toolRegistry([{ type: "function", name: "flat", parameters: { type: "object" } }, {
    type: "web_search_preview",
  }]);
  assert.deepEqual([...b.keys()], ["flat", "web_search_preview"]);
  assert.deepEqual(b.get("flat")!.definition, {
    type: "function",
    function: { name: "flat", parameters: { type: "object" } },
  });
  assert.equal(toolRegistry(new Map(b)).size, 2);
  assert.equal(definitionName(normalizeDefinition({ type: "mcp", name: "srv" })), "srv");
  assert.throws(() => normalizeDefinition(42), (e) => isScoutError(e, "invalid_input"));
});

Deno.test("parsed calls (§5.1): id = call_id → id → tool_call_id; name/arguments from function.*", () => {
  assert.deepEqual(parseToolCall({ call_id: "a", id: "b", name: "f", arguments: '{"x":1}' }), {
    name: "f",
    arguments: { x: 1 },
    id: "a",
  });
  assert.deepEqual(
    parseToolCall({ tool_call_id: "t", function: { name: "g", arguments: { y: 2 } } }),
    { name: "g", arguments: { y: 2 }, id: "t" },
  );
  assert.deepEqual(parseToolCall({ id: "c", name: "h", arguments: "{oops" }).arguments, "{oops");
  assert.throws(() => parseToolCall({ name: "f" }), /has no id/);
});

Deno.test("shell words: quotes and escapes", () => {
  assert.deepEqual(shellWords(`stdio "npx -y server" read 'a b' c\\ d`), [
    "stdio",
    "npx -y server",
    "read",
    "a b",
    "c d",
  ]);
  assert.deepEqual(shellWords("  "), []);
  assert.throws(() => shellWords(`"open`), /Unbalanced quote/);
});

Deno.test("assembly: chat directives after the caller's tools, later names win, introduce in place once, directives removed", async () => {
  const calls: string[][] = [];
  const { registry, messages } = await assembleTools(
    [
      { role: "user", content: "a" },
      { role: "tool", content: "Baking whisk eggs" },
      { role: "introduce", content: "Baking" },
      { role: "introduce", content: "Baking" },
      { role: "user", content: "b" },
    ],
    toolRegistry({
      whisk: [() => "caller", { name: "whisk" }],
      other: [() => "o", { name: "other" }],
    }),
    {
      workflowTools: (tokens) => {
        calls.push(tokens);
        return Promise.resolve([{
          definition: { type: "function", function: { name: "whisk" } },
          impl: () => "chat",
        }]);
      },
      introduce: (wf) => Promise.resolve(`docs of ${wf}`),
    },
  );
  assert.deepEqual(calls, [["Baking", "whisk", "eggs"]]);
  assert.deepEqual([...registry.keys()], ["whisk", "other"]);
  assert.equal(await registry.get("whisk")!.impl!("whisk", {}, { id: "x" }), "chat");
  assert.deepEqual(messages, [
    { role: "user", content: "a" },
    { role: "user", content: "docs of Baking" },
    { role: "user", content: "b" },
  ]);
});

Deno.test("assembly: directives without a resolver are not_available (never silently dropped)", async () => {
  for (const role of ["tool", "mcp", "kb", "association"]) {
    await assert.rejects(() => assembleTools([{ role, content: "X" }], new Map()), (e) => {
      assert.ok(isScoutError(e, "not_available"));
      assert.match(e.message, new RegExp(`"${role}:" tools are not available`));
      return true;
    });
  }
  const r = await assembleTools(
    [
      { role: "association", content: "a b" },
      { role: "clear_associations", content: "" },
    ],
    new Map(),
    {
      associationTools: () =>
        Promise.resolve([{ definition: { type: "function", function: { name: "a" } } }]),
    },
  );
  assert.equal(r.registry.size, 0);
});
