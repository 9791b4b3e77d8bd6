/**
 * The machine-checked example table of `chat.md` §11.2 (R rows:
 * `parse(print(input))`), transcribed verbatim, in the shape of
 * spec_rows.ts's {@link SpecRow}.
 */
import type { SpecRow } from "./spec_rows.ts";
import type { Chat } from "../../src/chat/mod.ts";

/** §11.2 print→parse rows. */
export const ROUND_TRIP_ROWS: SpecRow<Chat>[] = [
  {
    "id": "R01",
    "input": [{ "role": "system", "content": "you are a robot" }, {
      "role": "user",
      "content": "hi",
    }],
    "ruby": [
      { "role": "user", "content": "" },
      { "role": "system", "content": "you are a robot" },
      { "role": "user", "content": "hi" },
    ],
    "shows": "exact apart from the leading empty message",
  },
  {
    "id": "R02",
    "input": [{ "role": "meta", "content": "a=1\nb=2" }],
    "ruby": [{ "role": "user", "content": "" }, { "role": "meta", "content": "a=1" }, {
      "role": "user",
      "content": "b=2",
    }],
    "shows": "D2 multi-line inline content splits",
    "diverge": "D2",
    "port": [{ "role": "user", "content": "" }, { "role": "meta", "content": "a=1\nb=2" }],
  },
  {
    "id": "R03",
    "input": [{ "role": "user", "content": { "a": 1 } }],
    "ruby": [{ "role": "user", "content": "" }, { "role": "user", "content": '{"a":1}' }],
    "shows": "object → JSON string",
  },
  {
    "id": "R04",
    "input": [{ "role": "assistant", "content": "" }, { "role": "system", "content": "x" }],
    "ruby": [{ "role": "user", "content": "" }, { "role": "system", "content": "x" }],
    "shows": "empty message lost",
    "diverge": "D27",
    "port": [{ "role": "user", "content": "" }, { "role": "assistant", "content": "" }, {
      "role": "system",
      "content": "x",
    }],
  },
  {
    "id": "R05",
    "input": [{ "role": "assistant", "content": "Hi\nsections:\nuser: yes" }],
    "ruby": [{ "role": "user", "content": "" }, {
      "role": "assistant",
      "content": "Hi\nsections:\nuser: yes",
    }],
    "shows": "escaped → exact",
  },
  {
    "id": "R06",
    "input": [{ "role": "assistant", "content": "a\nfunction_call: x\nnote:x\nhttp://a.b" }],
    "ruby": [
      { "role": "user", "content": "" },
      { "role": "assistant", "content": "a" },
      { "role": "function_call", "content": "x" },
      { "role": "note", "content": "x" },
      { "role": "http", "content": "//a.b" },
    ],
    "shows": "D1 unescaped → headers",
    "diverge": "D1",
    "port": [{ "role": "user", "content": "" }, {
      "role": "assistant",
      "content": "a\nfunction_call: x\nnote:x\nhttp://a.b",
    }],
  },
  {
    "id": "R07",
    "input": [{ "role": "assistant", "content": "Hi\nsections:" }],
    "ruby": [{ "role": "user", "content": "" }, { "role": "assistant", "content": "Hi" }],
    "shows": "D1 header-like last line lost",
    "diverge": "D1",
    "port": [{ "role": "user", "content": "" }, {
      "role": "assistant",
      "content": "Hi\nsections:",
    }],
  },
  {
    "id": "R08",
    "input": [{ "role": "assistant", "content": "```\nuser: in fence\n```" }],
    "ruby": [{ "role": "user", "content": "" }, {
      "role": "assistant",
      "content": "```\n\\user: in fence\n```",
    }],
    "shows": "D1 backslash added in fence, kept",
    "diverge": "D1",
    "port": [{ "role": "user", "content": "" }, {
      "role": "assistant",
      "content": "```\nuser: in fence\n```",
    }],
  },
  {
    "id": "R09",
    "input": [{ "role": "user", "content": "\\user: literal" }],
    "ruby": [{ "role": "user", "content": "" }, { "role": "user", "content": "user: literal" }],
    "shows": "D1 literal backslash lost",
    "diverge": "D1",
    "port": [{ "role": "user", "content": "" }, { "role": "user", "content": "\\user: literal" }],
  },
  {
    "id": "R10",
    "input": [{ "role": "user", "content": "[[x]]" }],
    "ruby": [{ "role": "user", "content": "" }, { "role": "user", "content": "x]]" }],
    "shows": "block syntax in content rewritten",
    "diverge": "D26",
    "port": [{ "role": "user", "content": "" }, { "role": "user", "content": "[[x]]" }],
  },
  {
    "id": "R11",
    "input": [{ "role": "my role", "content": "hello" }],
    "ruby": [{ "role": "user", "content": "my role:\n\nhello" }],
    "shows": "bad role merges",
    "diverge": "D28",
    "portError": "chat_print",
  },
];
