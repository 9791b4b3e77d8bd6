/**
 * Message identity (`provenance.md` §5): lineage ids, addresses, previews.
 */
import assert from "node:assert/strict";
import { fingerprint, lineageId, lineageIds, messageIndex } from "../../src/chat/lineage.ts";
import { sha256hex } from "../../src/util/hash.ts";
import type { Message } from "../../src/chat/types.ts";
import { DENO, runCommand } from "../support/cli.ts";

const chat: Message[] = [
  { role: "user", content: "" },
  { role: "user", content: "hi" },
  { role: "meta", content: "pt=1 tt=2 inference_id=a" },
  { role: "assistant", content: "hello" },
];

Deno.test("lineage id is a framed sha256 of (prev, role, content) and nothing else", async () => {
  assert.equal(lineageId(null, "user", "hi"), sha256hex("-\n4:user\nshi"));
  assert.equal(lineageId("x", "user", { a: 1 }), sha256hex('1:x\n4:user\nj{"a":1}'));
  // framing: moving characters between fields or kinds changes the id
  assert.notEqual(lineageId(null, "user", "hi"), lineageId(null, "use", "rhi"));
  assert.notEqual(lineageId(null, "user", "1"), lineageId(null, "user", 1));
  assert.notEqual(lineageId("a", "user", "x"), lineageId(null, "user", "x"));
  // independent of the working directory, even when content names an existing file: computed
  // in a process whose cwd is / (a chdir here would move the cwd of the suite's parallel files)
  const module = new URL("../../src/chat/lineage.ts", import.meta.url).href;
  const code = `import { lineageId } from ${JSON.stringify(module)};\n` +
    `console.log(lineageId(null, "user", "deno.json"));`;
  const r = await runCommand(DENO, ["eval", "-q", "--no-config", code], { cwd: "/" });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), lineageId(null, "user", "deno.json"));
});

Deno.test("meta messages get ids but never become prev; addresses carry the source", () => {
  const idx = messageIndex(chat, "/w/a.chat");
  assert.equal(idx.length, 4);
  assert.equal(idx[0]!.prev, null);
  assert.equal(idx[1]!.prev, idx[0]!.id);
  assert.equal(idx[2]!.prev, idx[1]!.id);
  assert.equal(idx[3]!.prev, idx[1]!.id, "the meta is skipped");
  assert.deepEqual(idx[2]!.address, ["/w/a.chat", 2]);
  assert.deepEqual(idx[2]!.meta, { pt: 1, tt: 2, inference_id: "a" });
  assert.equal(idx[3]!.meta, undefined);
  assert.equal(messageIndex(chat)[3]!.address, 3);
  assert.deepEqual(lineageIds(chat), idx.map((e) => e.id));
});

Deno.test("adding or removing metas never changes conversational ids", () => {
  const without = chat.filter((m) => m.role !== "meta");
  const a = messageIndex(chat).filter((e) => e.role !== "meta").map((e) => e.id);
  const b = messageIndex(without).map((e) => e.id);
  assert.deepEqual(a, b);
  const changed = messageIndex([
    { role: "user", content: "" },
    { role: "user", content: "HI" },
    chat[3]!,
  ]);
  assert.notEqual(changed[2]!.id, a[2], "a changed history changes later ids");
});

Deno.test("fingerprint of null or absent content is the empty string, as Ruby's", () => {
  assert.equal(fingerprint(null), "");
  assert.equal(fingerprint(undefined), "");
  const [entry] = messageIndex([{ role: "user", content: null }]);
  assert.equal(entry!.fingerprint, "");
  assert.equal(fingerprint("null"), "null"); // the text "null" stays as it is
});

Deno.test("fingerprint cuts long content in the middle", () => {
  assert.equal(fingerprint("short"), "short");
  const long = "a".repeat(100) + "b".repeat(200) + "c".repeat(30);
  const f = fingerprint(long);
  assert.ok(f.startsWith("a".repeat(100) + "<...330 - "));
  assert.ok(f.endsWith("...>" + "c".repeat(30)));
  assert.equal(f.slice(100 + 10, 100 + 15), sha256hex(long).slice(0, 5));
  assert.equal(fingerprint({ x: 1 }), '{"x":1}');
});
