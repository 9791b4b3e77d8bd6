/**
 * Tool-call pairing and status (`provenance.md` §7, §11 test 23).
 */
import assert from "node:assert/strict";
import { parse } from "../../src/chat/parse.ts";
import { toolCalls, toolCallStatus } from "../../src/chat/tool_calls.ts";
import type { Message } from "../../src/chat/types.ts";

const call = (id: string, name = "sh", extra = {}) =>
  `function_call: ${JSON.stringify({ name, arguments: { cmd: "ls" }, id, ...extra })}`;
const out = (id: string, content: unknown, key = "id") =>
  `function_call_output: ${JSON.stringify({ name: "sh", content, [key]: id })}`;

Deno.test("23: the same call id in two files pairs per file", () => {
  const a = parse(["user: q", call("c1"), out("c1", "A")].join("\n\n"));
  const b = parse(["user: q", call("c1"), out("c1", "B")].join("\n\n"));
  assert.equal(toolCalls(a, "/a")[0]!.output, "A");
  assert.equal(toolCalls(b, "/b")[0]!.output, "B");
  const [rec] = toolCalls(a, "/a");
  assert.deepEqual(rec!.callAddress, ["/a", 2]);
  assert.deepEqual(rec!.outputAddress, ["/a", 3]);
  assert.equal(rec!.callIndex, 2);
  assert.equal(rec!.outputIndex, 3);
  assert.equal(rec!.name, "sh");
  assert.deepEqual(rec!.arguments, { cmd: "ls" });
  assert.equal(rec!.role, "function_call");
});

Deno.test("23: exit_status 1 and exception fail; a missing output is null", () => {
  const c = parse(
    [
      "user: q",
      call("ok"),
      out("ok", "fine"),
      call("x1"),
      out("x1", JSON.stringify({ exit_status: 1, stdout: "" })),
      call("x0"),
      out("x0", { exit_status: "0" }),
      call("ex"),
      out("ex", JSON.stringify({ exception: "boom" })),
      call("lost"),
    ].join("\n\n"),
  );
  const statuses = toolCalls(c).map((r) => [r.callId, toolCallStatus(r)]);
  assert.deepEqual(statuses, [
    ["ok", { success: true, reason: "output" }],
    ["x1", { success: false, reason: "exit_status", exitStatus: 1 }],
    ["x0", { success: true, reason: "exit_status", exitStatus: 0 }],
    ["ex", { success: false, reason: "exception", exception: "boom" }],
    ["lost", { success: null, reason: "missing_output" }],
  ]);
});

Deno.test('exit_status given as text is read as Ruby\'s to_i: "0" → 0, "3abc" → 3, "x" → 0', () => {
  const cases: [unknown, boolean, number][] = [
    ["0", true, 0],
    ["3abc", false, 3],
    ["x", true, 0],
    [" 2", false, 2],
    ["-1", false, -1],
    [null, true, 0],
  ];
  for (const [raw, success, exitStatus] of cases) {
    const c = parse([call("s"), out("s", JSON.stringify({ exit_status: raw }))].join("\n\n"));
    const status = toolCallStatus(toolCalls(c)[0]!);
    assert.deepEqual(
      status,
      { success, reason: "exit_status", exitStatus },
      `exit_status ${JSON.stringify(raw)}`,
    );
  }
});

Deno.test("pairing: first unpaired output (even earlier), call_id/tool_call_id, nested function", () => {
  const msgs: Message[] = [
    { role: "function_call_output", content: JSON.stringify({ content: "early", call_id: "e" }) },
    {
      role: "function_call",
      content: JSON.stringify({ function: { name: "f", arguments: "{}" }, call_id: "e" }),
    },
    { role: "function_call", content: JSON.stringify({ name: "g", tool_call_id: "t" }) },
    { role: "function_call_output", content: { content: "first", tool_call_id: "t" } },
    { role: "function_call_output", content: { content: "extra", tool_call_id: "t" } },
    { role: "mcp_call", content: JSON.stringify({ name: "m", id: 7 }) },
    { role: "function_call_output", content: JSON.stringify({ content: "seven", id: 7 }) },
    { role: "function_call", content: "not json" },
    { role: "function_call", content: JSON.stringify({ name: "h", function: "weird" }) },
    { role: "function_call_output", content: JSON.stringify({ content: "no id" }) },
  ];
  const calls = toolCalls(msgs);
  assert.deepEqual(calls.map((c) => [c.callId, c.name, c.output, c.role]), [
    ["e", "f", "early", "function_call"],
    ["t", "g", "first", "function_call"],
    ["7", "m", "seven", "mcp_call"],
    [null, "h", undefined, "function_call"],
  ]);
  assert.equal(calls[0]!.arguments, "{}");
  assert.equal(calls[0]!.outputIndex, 0);
});
