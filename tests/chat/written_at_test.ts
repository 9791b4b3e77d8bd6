/**
 * Where compiled lines were written (`written_at.ts`, defect R41-2): the mark
 * is invisible to deepEqual, JSON, print and `Object.keys`; `compile` keeps a
 * marked message's file and line; `extractOptions` reports the line of each
 * option in force (an `assistant` message resets the plain ones).
 */
import assert from "node:assert/strict";
import { compile, compileText } from "../../src/chat/compile.ts";
import { extractOptions } from "../../src/chat/options.ts";
import { print } from "../../src/chat/print.ts";
import { copyMessages, markWrittenAt, writtenAt } from "../../src/chat/written_at.ts";
import { isScoutError } from "../../src/errors.ts";

const config = { entries: [] };

Deno.test("compiled lines carry their file and line invisibly: deepEqual, JSON, keys and print unchanged", async () => {
  const chat = await compileText("user: a\n\ntool: X\n", { name: "n.chat", config });
  const plain = [{ role: "user", content: "a" }, { role: "tool", content: "X" }];
  assert.deepEqual(chat, plain);
  assert.equal(JSON.stringify(chat), JSON.stringify(plain));
  assert.deepEqual(Object.keys(chat[1]!), ["role", "content"]);
  assert.equal(print(chat), print(plain));
  assert.deepEqual(writtenAt(chat[1]!), { file: "n.chat", line: 3 });
  assert.deepEqual(writtenAt(copyMessages(chat)[1]!), { file: "n.chat", line: 3 });
  assert.equal(writtenAt({ ...chat[1]! }), undefined);
});

Deno.test("compile(messages): a marked message's errors name its file and line; given messages are not marked", async () => {
  const marked = markWrittenAt({ role: "bogus", content: "" }, { file: "s.chat", line: 4 });
  await assert.rejects(compile([marked], { config }), (e: unknown) => {
    assert.ok(isScoutError(e, "unknown_role"));
    assert.equal(e.file, "s.chat");
    assert.equal(e.line, 4);
    return true;
  });
  const given = { role: "user", content: "hi" };
  await compile([given], { config });
  assert.equal(writtenAt(given), undefined);
});

Deno.test("extractOptions: lines of the options in force; an assistant message resets the plain ones", async () => {
  const chat = await compileText(
    "endpoint: a\n\noption: temperature 1\n\nassistant: ok\n\nendpoint: b\n\nmodel: m\n",
    { name: "o.chat", config },
  );
  const { options, lines } = extractOptions(chat);
  assert.deepEqual(options, { endpoint: "b", model: "m" });
  assert.deepEqual(lines, {
    endpoint: { file: "o.chat", line: 7, value: "b" },
    model: { file: "o.chat", line: 9, value: "m" },
  });
  assert.equal(extractOptions([{ role: "endpoint", content: "x" }]).lines, undefined);
});
