/**
 * Where compiled lines were written (`written_at.ts`, defect R41-2): the mark
 * is invisible to deepEqual, JSON, print and `Object.keys`; `compile` keeps a
 * marked message's file and line; `extractOptions` reports the line of each
 * option in force (an `assistant` message resets the plain ones).
 */
import assert from "node:assert/strict";
import { compile, compileText } from "../../src/chat/compile.ts";
import { extractOptions } from "../../src/chat/options.ts";
import { parse } from "../../src/chat/parse.ts";
import { print } from "../../src/chat/print.ts";
import {
  copyMessages,
  keepWrittenAtParsed,
  markWrittenAt,
  writtenAt,
} from "../../src/chat/written_at.ts";
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

Deno.test("keepWrittenAtParsed: a chat read back from its print gets its originals' marks, position by position", () => {
  const at = (line: number) => ({ file: "u.chat", line });
  const originals = [
    markWrittenAt({ role: "user", content: "hello" }, at(1)),
    markWrittenAt({ role: "tool", content: "NoSuch" }, at(3)),
    { role: "sticky_option", content: "model m" }, // built in code: no mark
  ];
  const back = keepWrittenAtParsed(parse(print(originals)), originals);
  assert.equal(back[0]!.role, "user"); // the blank line print begins with
  assert.equal(writtenAt(back[0]!), undefined);
  assert.deepEqual(back.slice(1).map((m) => writtenAt(m)), [at(1), at(3), undefined]);
  // a message changed on the way, or counts that do not match: no mark is guessed
  const changed = parse(print(originals));
  changed[2]!.content = "Other";
  assert.deepEqual(keepWrittenAtParsed(changed, originals).map((m) => writtenAt(m)), [
    undefined,
    at(1),
    undefined,
    undefined,
  ]);
  const longer = parse(print([...originals, { role: "user", content: "more" }]));
  assert(keepWrittenAtParsed(longer, originals).every((m) => writtenAt(m) === undefined));
  const noBlank = [{ role: "system", content: "x" }, ...parse(print(originals)).slice(1)];
  assert(keepWrittenAtParsed(noBlank, originals).every((m) => writtenAt(m) === undefined));
});
