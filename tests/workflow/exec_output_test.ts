/**
 * An executed task's value (`exec`: no result file) shows as a saved one
 * would: a returned stream read to its content, a value no result file can
 * hold refused naming the task — in a chat's `exec_task:` and in an exec
 * export's tool output (R126-3 for exec: both showed as `{}`). A user
 * workflow file in a temp dir, real compiles and tool calls.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compileText } from "../../src/chat/compile.ts";
import { emptyConfig } from "../../src/config/store.ts";
import { jobRoleResolver } from "../../src/workflow/chat_roles.ts";
import { runToolCalls } from "../../src/tools/dispatch.ts";
import { toolRegistry } from "../../src/tools/registry.ts";
import { workflowToolResolver } from "../../src/tools/workflow.ts";
import { tempDir } from "../support/cli.ts";

const EXECS = `import { Readable } from "node:stream";
const enc = new TextEncoder();
export default (api) => api.workflow("Execs", {
  exports: { exec: ["web", "node", "generated", "jsonStream", "notJson", "numbers", "map", "set", "fn", "response", "plain"] },
  tasks: {
    web: { type: "text", run: () => new ReadableStream({ start(c) { c.enqueue(enc.encode("line 1\\n")); c.enqueue("line 2\\n"); c.close(); } }) },
    node: { type: "text", run: () => Readable.from(["a\\n", Buffer.from("b\\n")]) },
    generated: { type: "string", run: async function* () { yield "x"; yield enc.encode("y"); } },
    jsonStream: { type: "json", run: () => new Response('{"a":[1,2]}').body },
    notJson: { type: "json", run: () => new Response("not json").body },
    numbers: { type: "text", run: () => Readable.from([1, 2]) },
    map: { type: "json", run: () => new Map([["a", 1]]) },
    set: { type: "text", run: () => new Set(["a"]) },
    fn: { type: "string", run: () => () => 1 },
    response: { type: "text", run: () => new Response("body") },
    plain: { type: "json", run: () => ({ ok: [1, 2] }) },
  },
});`;

const SHOWN: [string, string][] = [
  ["web", "line 1\nline 2\n"],
  ["node", "a\nb\n"],
  ["generated", "xy"],
  ["jsonStream", '{"a":[1,2]}'],
  ["plain", '{"ok":[1,2]}'],
];

const REFUSED: [string, RegExp][] = [
  ["notJson", /Task "Execs\/notJson" streamed text that is no "json" result: Invalid JSON/],
  ["numbers", /Task "Execs\/numbers" returned a stream of a number, which a "text" result file/],
  [
    "map",
    /Task "Execs\/map" returned a Map, which a "json" result file cannot hold: .*fromEntries/,
  ],
  ["set", /Task "Execs\/set" returned a Set, which a "text" result file cannot hold/],
  ["fn", /Task "Execs\/fn" returned a function, which a "string" result file cannot hold/],
  ["response", /Task "Execs\/response" returned a Response, .*the response's body/],
];

function setup(dir: string) {
  mkdirSync(join(dir, "workflows", "Execs"), { recursive: true });
  writeFileSync(join(dir, "workflows", "Execs", "workflow.js"), EXECS);
  return { SCOUT_HOME: join(dir, "home"), HOME: dir, NO_COLOR: "1" };
}

Deno.test("exec_task: a returned stream shows its content, a value no result file holds fails naming the task (R126-3)", async () => {
  await using d = await tempDir();
  const env = setup(d.path);
  const opts = {
    cwd: d.path,
    env,
    config: emptyConfig(),
    jobs: jobRoleResolver({ cwd: d.path, env }),
  };
  for (const [task, text] of SHOWN) {
    const out = await compileText(`exec_task: Execs ${task}\n`, opts);
    assert.deepEqual(out, [{ role: "user", content: text }], task);
  }
  for (const [task, message] of REFUSED) {
    await assert.rejects(compileText(`exec_task: Execs ${task}\n`, opts), message, task);
  }
});

Deno.test("exec export tool: a returned stream is the content, a value no result file holds an error naming the task (R126-3)", async () => {
  await using d = await tempDir();
  const env = setup(d.path);
  const tools = await workflowToolResolver({ cwd: d.path, env }).workflowTools!(["Execs"]);
  const registry = toolRegistry(tools);
  const all = [...SHOWN, ...REFUSED];
  const out = await runToolCalls(all.map(([name]) => ({ name, arguments: {}, id: name })), {
    registry,
  });
  const outputs = out.filter((m) => m.role === "function_call_output");
  assert.equal(outputs.length, all.length);
  for (const [i, [task, text]] of SHOWN.entries()) {
    const o = JSON.parse(String(outputs[i]!.content));
    assert.equal(o.content, text, task);
    assert.equal(o.error, undefined, task);
  }
  for (const [i, [task, message]] of REFUSED.entries()) {
    const o = JSON.parse(String(outputs[SHOWN.length + i]!.content));
    assert.equal(o.error, "error", `${task}: ${o.content}`);
    assert.match(JSON.parse(o.content).exception, message, task);
  }
});
