import assert from "node:assert/strict";
import { clean, clear, parse, pull, purge, removeRole } from "../../src/chat/mod.ts";
import type { Chat } from "../../src/chat/mod.ts";

/** `role:content` notation of the spec's §11.3. */
function msgs(...items: string[]): Chat {
  return items.map((s) => {
    const i = s.indexOf(":");
    return { role: s.slice(0, i), content: s.slice(i + 1) };
  });
}

Deno.test("clear C1: the last clear and everything before it are dropped", () => {
  const input = msgs("system:s", "user:a", "clear:x", "user:b", "clear:y", "user:c");
  const before = structuredClone(input);
  assert.deepEqual(clear(input), msgs("user:c"));
  assert.deepEqual(input, before, "input not modified");
});

Deno.test("clear C2: clear_tools drops earlier tool-call history only", () => {
  const input = msgs(
    "function_call:f1",
    "function_call_output:o1",
    "clear_tools:true",
    "function_call:f2",
    "function_call_output:o2",
    "user:u",
  );
  assert.deepEqual(
    clear(input),
    msgs("function_call:f2", "function_call_output:o2", "user:u"),
  );
});

Deno.test("clear C3: a call is dropped iff the nearest following clear_tools is not 'false'", () => {
  const input = msgs(
    "function_call:f0",
    "clear_tools:false",
    "function_call:f1",
    "clear_tools:yes",
    "function_call:f2",
  );
  assert.deepEqual(clear(input), msgs("function_call:f0", "function_call:f2"));
});

Deno.test("clear C4: clean_role removes that role before and after the marker", () => {
  const input = msgs("system:s", "user:a", "clean_role:user", "assistant:b", "user:c");
  assert.deepEqual(clear(input), msgs("system:s", "assistant:b"));
  assert.deepEqual(
    clear(msgs("user:a", "clear_role: user ", "assistant:", "user:c")),
    [],
    "clear_role works too; its content is trimmed; the role's clean also drops empties",
  );
});

Deno.test("clear: a custom cut role (previous_response_id)", () => {
  const input = msgs(
    "user:a",
    "previous_response_id:r1",
    "user:b",
    "previous_response_id:r2",
    "user:c",
  );
  assert.deepEqual(clear(input, "previous_response_id"), msgs("user:c"));
  assert.deepEqual(clear(msgs("user:a")), msgs("user:a"), "no marker → everything kept");
});

Deno.test("clean: default drops only empty-string contents (null survives, skip kept: D9 parity)", () => {
  assert.deepEqual(
    clean(msgs("user:", "skip:x", "previous_response_id:r", "user:a")),
    msgs("skip:x", "previous_response_id:r", "user:a"),
  );
  const withNull: Chat = [{ role: "user", content: null }, { role: "user", content: "" }];
  assert.deepEqual(clean(withNull), [{ role: "user", content: null }]);
  assert.deepEqual(clean(msgs("skip:x", "user:a", "meta:m"), ["skip", "meta"]), msgs("user:a"));
});

Deno.test("C9 parse→clear→clean: bare clear: now cuts (D8); Ruby kept [a, b]", () => {
  const ruby = [{ role: "user", content: "a" }, { role: "user", content: "b" }];
  const port = clean(clear(parse("user: a\nclear:\nuser: b")));
  assert.deepEqual(port, [{ role: "user", content: "b" }]);
  assert.notDeepEqual(port, ruby);
  assert.deepEqual(clean(clear(parse("user: a\nclear: true\nuser: b"))), [
    { role: "user", content: "b" },
  ]);
});

Deno.test("bare clear_tools: block forgets tool history (D8)", () => {
  const chat = parse("function_call: f1\nclear_tools:\nfunction_call: f2\nuser: go");
  assert.deepEqual(clean(clear(chat)), msgs("function_call:f2", "user:go"));
});

Deno.test("purge, pull, removeRole", () => {
  const chat = msgs("previous_response_id:r1", "user:a", "format:json", "format:xml");
  assert.deepEqual(purge(chat), msgs("user:a", "format:json", "format:xml"));
  assert.deepEqual(purge(chat, "format"), msgs("previous_response_id:r1", "user:a"));
  assert.equal(chat.length, 4, "purge copies");

  const pulled = pull(chat, "format");
  assert.deepEqual(pulled, { role: "format", content: "xml" });
  assert.deepEqual(chat, msgs("previous_response_id:r1", "user:a"));
  assert.equal(pull(chat, "format"), null);

  const removed = removeRole(chat, "previous_response_id");
  assert.deepEqual(removed, msgs("previous_response_id:r1"));
  assert.deepEqual(chat, msgs("user:a"));
  const c2 = msgs("clear:x", "user:a", "clear:y");
  assert.deepEqual(removeRole(c2), msgs("clear:x", "clear:y"));
  assert.deepEqual(c2, msgs("user:a"));
});
