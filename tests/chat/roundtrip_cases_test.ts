/**
 * The concrete cases of issue 10 part A: each asserts the exact printed text,
 * that the port reads it back as written, that Ruby reads the same messages,
 * and — for the cases that used to break — that the printer before the fix
 * (`oldPrint`, kept here verbatim in its logic) wrote a different text that
 * reads back wrong.
 */
import assert from "node:assert/strict";
import { isScoutError } from "../../src/errors.ts";
import { parse, print } from "../../src/chat/mod.ts";
import type { Message } from "../../src/chat/mod.ts";
import {
  CMD_CLOSE,
  CMD_OPEN,
  lastCloserOffsets,
  openSquare,
  XML_CLOSE,
  XML_OPEN,
} from "../../src/chat/parse.ts";
import { isHeaderLine, rubyStrip } from "../../src/chat/text.ts";
import { assertRubyReads, expectedRead } from "../support/roundtrip.ts";

/** The printer as it was before issue 10 (header escapes only, blocks trusted). */
function oldPrint(chat: Message[]): string {
  const inline = new Set(["option", "previous_response_id", "function_call", "meta"]);
  inline.add("function_call_output");
  const escape = (content: string) => {
    const lines = content.split("\n");
    let mode = "none";
    let tag = "";
    let offset = 0;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      const next = offset + line.length + 1;
      const s = rubyStrip(line);
      if (mode === "none") {
        if (s.startsWith("```")) mode = "fence";
        else if (s.startsWith("[[")) mode = openSquare(line).closed ? "none" : "square";
        else if (line.includes(":-- ") && CMD_OPEN.test(s)) mode = "cmd";
        else if (s.startsWith("<") && XML_OPEN.test(s)) {
          const t = XML_OPEN.exec(s)![1]!;
          const last = lastCloserOffsets(content).get(t);
          if (!line.includes(`</${t}>`) && last !== undefined && last >= next) {
            mode = "xml";
            tag = t;
          }
        } else if (isHeaderLine(line.replace(/^\\+/, ""))) lines[i] = "\\" + line;
      } else if (mode === "fence" && s.startsWith("```")) mode = "none";
      else if (mode === "square" && s.endsWith("]]")) mode = "none";
      else if (mode === "cmd" && CMD_CLOSE.test(s)) mode = "none";
      else if (mode === "xml" && XML_CLOSE.exec(s)?.[1] === tag) mode = "none";
      offset = next;
    }
    return lines.join("\n");
  };
  const render = (m: Message) => {
    const r = String(m.role);
    const c = m.content;
    if (c === null || c === undefined || c === "") return `${r}:`;
    const text = String(c);
    if (inline.has(r) && !text.includes("\n")) return `${r}: ${text}`;
    return `${r}:\n\n${escape(text)}`;
  };
  return "\n" + chat.map(render).join("\n\n");
}

interface Case {
  name: string;
  chat: Message[];
  printed: string;
  /** The old printer wrote something that reads back wrong. */
  wasBroken: boolean;
}

const CASES: Case[] = [
  {
    name: "odd fence (cut-off code), then a user turn, a meta line and an answer",
    chat: [
      { role: "assistant", content: "Here is the start:\n```python\ndef f(x):\n    return x" },
      { role: "user", content: "continue?" },
      { role: "meta", content: "pt=10 ct=5" },
      { role: "assistant", content: "ok" },
    ],
    printed: "\nassistant:\n\nHere is the start:\n\\```python\ndef f(x):\n    return x" +
      "\n\nuser:\n\ncontinue?\n\nmeta: pt=10 ct=5\n\nassistant:\n\nok",
    wasBroken: true,
  },
  {
    name: "a lone [[ line",
    chat: [{ role: "user", content: "see\n[[\nthis" }, { role: "assistant", content: "x" }],
    printed: "\nuser:\n\nsee\n\\[[\nthis\n\nassistant:\n\nx",
    wasBroken: true,
  },
  {
    name: "a one-line [[x]] and a [[ ]] block",
    chat: [{ role: "user", content: "[[x]]\n[[\nuser: in\n]]" }],
    printed: "\nuser:\n\n\\[[x]]\n\\[[\n\\user: in\n]]",
    wasBroken: true,
  },
  {
    name: "<think> opened in one message, closed in a later one",
    chat: [
      { role: "assistant", content: "<think>\nplanning" },
      { role: "user", content: "go on" },
      { role: "assistant", content: "done\n</think>\nanswer" },
    ],
    printed:
      "\nassistant:\n\n\\<think>\nplanning\n\nuser:\n\ngo on\n\nassistant:\n\ndone\n</think>\nanswer",
    wasBroken: true,
  },
  {
    name: "a one-line element that Ruby would open a block on",
    chat: [{ role: "user", content: "<b>bold</b> text" }, { role: "assistant", content: "y" }],
    printed: "\nuser:\n\n\\<b>bold</b> text\n\nassistant:\n\ny",
    wasBroken: false, // the port read it right; Ruby swallowed the rest (checked below)
  },
  {
    name: "a command block opener without its closer",
    chat: [{ role: "user", content: "sh:-- ls {{{\nout" }, { role: "assistant", content: "z" }],
    printed: "\nuser:\n\n\\sh:--\\ ls {{{\nout\n\nassistant:\n\nz",
    wasBroken: true,
  },
  {
    name: "]] and }}} lines outside blocks print as they are",
    chat: [{ role: "user", content: "a\n]]\n}}}\nx ]]" }],
    printed: "\nuser:\n\na\n]]\n}}}\nx ]]",
    wasBroken: false,
  },
  {
    name: "\\-prefixed literal lines get one more backslash",
    chat: [{ role: "user", content: "\\user: x\n\\```\n  \\[[\n\\<a>\n\\\\y: z\nok" }],
    printed: "\nuser:\n\n\\\\user: x\n\\\\```\n  \\\\[[\n\\\\<a>\n\\\\\\y: z\nok",
    wasBroken: true,
  },
  {
    name: "empty and whitespace-only messages",
    chat: [
      { role: "system", content: "" },
      { role: "assistant", content: " \n\t" },
      { role: "user", content: "q" },
      { role: "clear", content: null },
      { role: "meta", content: "" },
    ],
    printed:
      "\nsystem:\n\n[[\n]]\n\nassistant:\n\n[[\n]]\n\nuser:\n\nq\n\nclear:\n\nmeta:\n\n[[\n]]",
    wasBroken: true,
  },
  {
    name: "balanced fences and xml blocks print unchanged",
    chat: [{
      role: "assistant",
      content: "```ts\nuser: in a fence\n```\n<note>\nassistant: in a note\n</note>\ndone",
    }],
    printed:
      "\nassistant:\n\n```ts\nuser: in a fence\n```\n<note>\nassistant: in a note\n</note>\ndone",
    wasBroken: false,
  },
  {
    name: "INLINE roles with multi-line content print in block form",
    chat: [{ role: "meta", content: "a=1\nuser: b" }, { role: "option", content: "k v" }],
    printed: "\nmeta:\n\na=1\n\\user: b\n\noption: k v",
    wasBroken: false,
  },
  {
    name: "CRLF content keeps its line ends",
    chat: [{ role: "user", content: "a\r\n```\r\nb" }, { role: "assistant", content: "c\r\nd" }],
    printed: "\nuser:\n\na\r\n\\```\r\nb\n\nassistant:\n\nc\r\nd",
    wasBroken: true,
  },
  {
    name: "a leading empty user message is left out (parse adds it back)",
    chat: [{ role: "user", content: "" }, { role: "system", content: "s" }],
    printed: "\nsystem:\n\ns",
    wasBroken: false,
  },
];

for (const c of CASES) {
  Deno.test(`print case: ${c.name}`, () => {
    const printed = print(c.chat);
    assert.equal(printed, c.printed);
    const expected = expectedRead(c.chat);
    assert.deepEqual(parse(printed), expected);
    assertRubyReads(printed, expected);
    const old = oldPrint(c.chat);
    if (c.wasBroken) {
      assert.notEqual(old, printed);
      assert.notDeepEqual(parse(old), expected, "the old printer's text reads back wrong");
    } else if (c.chat[0]!.content !== "") {
      assert.deepEqual(parse(old), expected, "the old printer was right here");
    }
  });
}

Deno.test("print case: the one-line element used to swallow the rest in Ruby", async () => {
  const { rubyParse } = await import("../support/parse_ruby.ts");
  const chat = [{ role: "user", content: "<b>bold</b> text" }, { role: "assistant", content: "y" }];
  assert.equal(rubyParse(oldPrint(chat)).length, 2, "Ruby merged both messages");
  assert.equal(rubyParse(print(chat)).length, 3);
});

Deno.test("print case: an odd fence swallowed every later turn with the old printer", () => {
  const chat = CASES[0]!.chat;
  assert.deepEqual(parse(oldPrint(chat)).map((m) => m.role), ["user", "assistant"]);
});

Deno.test("print: roles that are not a header word are rejected with chat_print", () => {
  for (const role of ["my role", "a\nb", "user:", "User", "", "rôle"]) {
    const chat = [{ role: "user", content: "a" }, { role, content: "b" }];
    assert.throws(() => print(chat), (e) => {
      assert.ok(isScoutError(e, "chat_print"), String(e));
      assert.equal(
        e.message,
        `Cannot print message 1: role ${JSON.stringify(role)} is not a header word [a-z0-9_]+`,
      );
      assert.equal(e.index, 1);
      return true;
    });
  }
  assert.throws(() => print([{ role: 3 as unknown as string, content: "x" }]), /role 3 is not/);
  // The old printer wrote them, and the text read back as other messages.
  assert.notDeepEqual(parse(oldPrint([{ role: "a\nb", content: "x" }])).slice(1), [
    { role: "a\nb", content: "x" },
  ]);
});

Deno.test("print: a lone empty user message prints as its header; an empty chat as a newline", () => {
  assert.equal(print([{ role: "user", content: "" }]), "\nuser:");
  assert.deepEqual(parse(print([{ role: "user", content: "" }])), [{ role: "user", content: "" }]);
  assert.equal(print([]), "\n");
  assert.deepEqual(parse(print([])), []);
});

Deno.test("print is a fixed point: chat parse --json | chat print, twice", () => {
  for (const t of ["hello\nuser: hi", "user: hi", "system:\n\nx\n\nuser: hi", "a\n```\nb"]) {
    const once = print(parse(t));
    assert.equal(print(parse(once)), once, JSON.stringify(t));
    // Before: the leading empty user message printed as a header, and the next read added one.
    const oldOnce = oldPrint(parse(t));
    if (t === "hello\nuser: hi") assert.notEqual(oldPrint(parse(oldOnce)), oldOnce);
  }
});

Deno.test("append (llm ask -o): an open tag in the file is not closed by the appended answer", async () => {
  const { appendChatText } = await import("../../src/chat/print_append.ts");
  const existing = "user:\n\n<think>\nplan\n"; // written before the fix: the tag had no closer
  const added = [{ role: "assistant", content: "done\n</think>" }, {
    role: "meta",
    content: "pt=1",
  }];
  const naive = existing.trimEnd() + "\n" + print(added) + "\n";
  assert.deepEqual(parse(naive).map((m) => m.role), ["user", "user", "meta"], "answer swallowed");
  const text = appendChatText(existing, added);
  assert.equal(text, "user:\n\n\\<think>\nplan\n\nassistant:\n\ndone\n</think>\n\nmeta: pt=1\n");
  const want = [...parse(existing), { role: "assistant", content: "done\n</think>" }, added[1]!];
  assert.deepEqual(parse(text), want);
  assertRubyReads(text, want);
  // Without a hazard the old text is kept byte for byte.
  assert.equal(
    appendChatText("hi\n\n\n", [{ role: "assistant", content: "x" }]),
    "hi\n\nassistant:\n\nx\n",
  );
});

Deno.test("append on bytes (llm ask -o): bytes that are not UTF-8 and a byte-order mark are kept, also when the chat is printed again", async () => {
  const { appendChatBytes } = await import("../../src/chat/print_append.ts");
  const enc = new TextEncoder();
  const bytes = (...parts: (string | number[])[]) =>
    Uint8Array.from(parts.flatMap((p) => typeof p === "string" ? [...enc.encode(p)] : p));
  const answer = [{ role: "assistant", content: "x" }];
  // the old part as it was, whitespace at its end aside
  assert.deepEqual(
    appendChatBytes(bytes([0xef, 0xbb, 0xbf], "user:\n\nlatin1 caf", [0xe9], " bytes\n\n"), answer),
    bytes([0xef, 0xbb, 0xbf], "user:\n\nlatin1 caf", [0xe9], " bytes\n\nassistant:\n\nx\n"),
  );
  // printed again whole (an open tag the answer would close): the bad byte is still there
  const added = [{ role: "assistant", content: "done\n</think>" }];
  assert.deepEqual(
    appendChatBytes(bytes("user:\n\n<think>\ncaf", [0xe9], "\n"), added),
    bytes("user:\n\n\\<think>\ncaf", [0xe9], "\n\nassistant:\n\ndone\n</think>\n"),
  );
  // a new file, and an empty one with a mark
  assert.deepEqual(appendChatBytes(new Uint8Array(0), answer), bytes("assistant:\n\nx\n"));
  assert.deepEqual(
    appendChatBytes(bytes([0xef, 0xbb, 0xbf], "\n"), answer),
    bytes([0xef, 0xbb, 0xbf], "assistant:\n\nx\n"),
  );
});

Deno.test("append (llm ask -o) to a CRLF chat: the new lines end in CRLF too, the old text is kept, and it reads back as the old messages and the new (R86-4)", async () => {
  const { appendChatText } = await import("../../src/chat/print_append.ts");
  const existing = "system:\r\n\r\nBe brief.\r\n\r\nuser: hi";
  const added = [{ role: "meta", content: "pt=1" }, { role: "assistant", content: "Hello." }];
  const text = appendChatText(existing, added);
  assert.equal(text, existing + "\r\n\r\nmeta: pt=1\r\n\r\nassistant:\r\n\r\nHello.\r\n");
  assert.doesNotMatch(text, /[^\r]\n/, "no bare LF");
  assert.deepEqual(parse(text), [...parse(existing), ...added]);
  assertRubyReads(text, [...parse(existing), ...added]);
  // a multi-line answer: its lines end as the file's do (as --inline writes a reply)
  const multi = appendChatText(existing, [{ role: "assistant", content: "a\nb" }]);
  assert.doesNotMatch(multi, /[^\r]\n/, "no bare LF");
  assert.deepEqual(parse(multi), [...parse(existing), { role: "assistant", content: "a\r\nb" }]);
  // an LF file stays LF
  assert.equal(
    appendChatText("user: hi\n", added),
    "user: hi\n\nmeta: pt=1\n\nassistant:\n\nHello.\n",
  );
});
