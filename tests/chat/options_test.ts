import assert from "node:assert/strict";
import { join } from "node:path";
import { extractOptions, isScoutError, resolveFormat } from "../../mod.ts";
import type { Chat } from "../../mod.ts";
import { markWrittenAt } from "../../src/chat/written_at.ts";
import { tempDir } from "../support/cli.ts";

function msgs(...items: string[]): Chat {
  return items.map((s) => {
    const i = s.indexOf(":");
    return { role: s.slice(0, i), content: s.slice(i + 1) };
  });
}

Deno.test("extractOptions C5: sticky and plain options, assistant resets plain", () => {
  const input = msgs(
    "endpoint:e1",
    "option:k1 v1",
    "sticky_option:sk sv",
    "format:json",
    "persist:false",
    "previous_response_id:r1",
    "assistant:ok",
    "option:k2 v2",
    "model:m1",
    "user:go",
  );
  const before = structuredClone(input);
  const { options, chat } = extractOptions(input);
  assert.deepEqual(options, {
    endpoint: "e1",
    sk: "sv",
    previous_response_id: "r1",
    model: "m1",
    k2: "v2",
  });
  assert.deepEqual(Object.keys(options), ["endpoint", "sk", "previous_response_id", "model", "k2"]);
  assert.deepEqual(chat, msgs("previous_response_id:r1", "assistant:ok", "user:go"));
  assert.deepEqual(input, before, "input not modified");
});

Deno.test("extractOptions C6: nil cancels; no coercion; assistant keeps sticky", () => {
  assert.deepEqual(
    extractOptions(
      msgs("model:m1", "option:model nil", "option:temperature 0.7", "option:flag"),
    ).options,
    { temperature: "0.7", flag: "" },
  );
  assert.deepEqual(
    extractOptions(msgs("model:m1", "assistant:x", "option:model m2", "assistant:y")).options,
    { model: "m1" },
  );
});

Deno.test("extractOptions C7: a plain option beats a sticky one until an assistant reply", () => {
  assert.deepEqual(extractOptions(msgs("sticky_option:a 1", "option:a 2")).options, { a: "2" });
  assert.deepEqual(
    extractOptions(msgs("sticky_option:a 1", "option:a 2", "assistant:z")).options,
    { a: "1" },
  );
});

Deno.test("extractOptions: option splitting at the first space; only assistant resets", () => {
  const { options } = extractOptions(
    msgs("option:k  two spaces", "option:solo", "function_call:{}", "backend:responses"),
  );
  assert.deepEqual(options, { backend: "responses", k: " two spaces", solo: "" });
  assert.deepEqual(
    extractOptions([{ role: "format", content: null }, { role: "agent", content: "nil" }]).options,
    {},
    "null and 'nil' are dropped",
  );
  const schema = { type: "object" };
  assert.equal(extractOptions([{ role: "format", content: schema }]).options.format, schema);
});

Deno.test("extractOptions C7/D18: format file next to the chat first, then cwd", async () => {
  await using dir = await tempDir();
  const chats = join(dir.path, "chats");
  await Deno.mkdir(chats);
  await Deno.writeTextFile(join(chats, "schema.json"), '{"type":"object","from":"chat dir"}');
  await Deno.writeTextFile(join(dir.path, "schema.json"), '{"type":"object","from":"cwd"}');
  await Deno.writeTextFile(join(dir.path, "only_cwd.json"), '{"from":"cwd"}');
  const origin = join(chats, "a.chat");

  // Ruby: cwd only.
  assert.deepEqual(
    extractOptions(msgs("format:schema.json"), { cwd: dir.path }).options.format,
    { type: "object", from: "cwd" },
  );
  // Port: next to the chat first (D18).
  assert.deepEqual(
    extractOptions(msgs("format:schema.json"), { cwd: dir.path, origin }).options.format,
    { type: "object", from: "chat dir" },
  );
  assert.deepEqual(
    extractOptions(msgs("format:only_cwd.json"), { cwd: dir.path, origin }).options.format,
    { from: "cwd" },
  );
  assert.equal(
    extractOptions(msgs("format:missing.json"), { cwd: dir.path, origin }).options.format,
    "missing.json",
    "no such file: the string stays (a type name)",
  );
  await Deno.writeTextFile(join(dir.path, "bad.json"), "{not json");
  assert.throws(
    () => extractOptions(msgs("format:bad.json"), { cwd: dir.path }),
    (e) => isScoutError(e, "json_parse") && String(e.message).includes("bad.json"),
  );
});

Deno.test("resolveFormat D18: a JSON object string is the schema", () => {
  assert.deepEqual(resolveFormat('{"type":"object","properties":{}}'), {
    type: "object",
    properties: {},
  });
  assert.equal(resolveFormat("json"), "json");
  assert.equal(resolveFormat("[1,2]"), "[1,2]", "only objects are schemas");
  assert.equal(resolveFormat("{not json"), "{not json");
  assert.equal(resolveFormat(null), null);
});

Deno.test("an option named like an Object.prototype member keeps the line that set it (R112-5)", () => {
  const chat = ["toString", "constructor", "valueOf"].map((k, i) =>
    markWrittenAt({ role: "sticky_option", content: `${k} ${i}` }, { file: "a.chat", line: i + 1 })
  );
  const { options, lines } = extractOptions(chat);
  assert.deepEqual(options, { toString: "0", constructor: "1", valueOf: "2" });
  // before: `k in plain` found Object.prototype's member, and its (absent) line
  assert.deepEqual(lines?.toString, { file: "a.chat", line: 1, value: "0" });
  assert.deepEqual(lines?.constructor, { file: "a.chat", line: 2, value: "1" });
  assert.deepEqual(lines?.valueOf, { file: "a.chat", line: 3, value: "2" });
});
