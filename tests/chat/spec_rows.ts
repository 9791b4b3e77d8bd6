/**
 * The machine-checked example tables of `chat.md` §11.1 (P rows: `parse(input)`;
 * the §11.2 R rows, `parse(print(input))`, are in spec_roundtrip_rows.ts),
 * transcribed verbatim: `ruby` is the Ruby result. Rows governed by a DIVERGE item carry `port`, the port's
 * result, and the item id in `diverge`.
 */
import type { Chat } from "../../src/chat/mod.ts";

/** One example row. */
export interface SpecRow<I> {
  id: string;
  input: I;
  ruby: Chat;
  shows: string;
  diverge?: string;
  port?: Chat;
  /** The port's error code instead of a value (print rejects the input). */
  portError?: string;
}

/** §11.1 parse rows. */
export const PARSE_ROWS: SpecRow<string>[] = [
  {
    "id": "P01",
    "input": "Hello\nWorld",
    "ruby": [{ "role": "user", "content": "Hello\nWorld" }],
    "shows": "no header → one user message",
  },
  {
    "id": "P02",
    "input": "user: hi",
    "ruby": [{ "role": "user", "content": "" }, { "role": "user", "content": "hi" }],
    "shows": "leading-empty quirk; inline header",
  },
  {
    "id": "P03",
    "input": "system:\n\nYou are a bot.\n\nuser:\n\nWhat is 2+2?\n\nassistant:\n\n4.",
    "ruby": [{ "role": "user", "content": "" }, { "role": "system", "content": "You are a bot." }, {
      "role": "user",
      "content": "What is 2+2?",
    }, { "role": "assistant", "content": "4." }],
    "shows": "canonical block form",
  },
  {
    "id": "P04",
    "input": "assistant:\nThis is a block\nwith lines\nuser: inline reply\nanother line",
    "ruby": [
      { "role": "user", "content": "" },
      { "role": "assistant", "content": "This is a block\nwith lines" },
      { "role": "user", "content": "inline reply" },
      { "role": "assistant", "content": "another line" },
    ],
    "shows": "after an inline header, text returns to the last *block* role",
  },
  {
    "id": "P05",
    "input": "option: model gpt-4o\nHello",
    "ruby": [{ "role": "user", "content": "" }, { "role": "option", "content": "model gpt-4o" }, {
      "role": "user",
      "content": "Hello",
    }],
    "shows": "no block role yet → initial role",
  },
  {
    "id": "P06",
    "input": "assistant:\nfoo\nprevious_response_id: r1\nbar",
    "ruby": [{ "role": "user", "content": "" }, { "role": "assistant", "content": "foo" }, {
      "role": "previous_response_id",
      "content": "r1",
    }, { "role": "user", "content": "bar" }],
    "shows": "inline `previous_response_id` → role user",
  },
  {
    "id": "P07",
    "input": "agent: Helper\nWhat now?",
    "ruby": [{ "role": "user", "content": "" }, { "role": "agent", "content": "Helper" }, {
      "role": "user",
      "content": "What now?",
    }],
    "shows": "inline `agent` → role user",
  },
  {
    "id": "P08",
    "input": "hello\nuser: hi",
    "ruby": [{ "role": "user", "content": "hello" }, { "role": "user", "content": "hi" }],
    "shows": "text first → no leading empty",
  },
  {
    "id": "P09",
    "input": "system:\n\nuser:\n\nhi",
    "ruby": [{ "role": "user", "content": "" }, { "role": "user", "content": "hi" }],
    "shows": "empty block dropped",
  },
  {
    "id": "P10",
    "input": "user: a\nclear:\nuser: b",
    "ruby": [{ "role": "user", "content": "" }, { "role": "user", "content": "a" }, {
      "role": "user",
      "content": "b",
    }],
    "shows": "D8 bare `clear:` lost",
    "diverge": "D8",
    "port": [{ "role": "user", "content": "" }, { "role": "user", "content": "a" }, {
      "role": "clear",
      "content": "",
    }, { "role": "user", "content": "b" }],
  },
  {
    "id": "P11",
    "input": "user:\n\n\\user: not a header\nok",
    "ruby": [{ "role": "user", "content": "" }, {
      "role": "user",
      "content": "user: not a header\nok",
    }],
    "shows": "escape removes one backslash",
  },
  {
    "id": "P12",
    "input": "user:\n\n\\\\user: two backslashes",
    "ruby": [{ "role": "user", "content": "" }, {
      "role": "user",
      "content": "\\\\user: two backslashes",
    }],
    "shows": "`\\\\` kept verbatim",
    "diverge": "D1",
    "port": [{ "role": "user", "content": "" }, {
      "role": "user",
      "content": "\\user: two backslashes",
    }],
  },
  {
    "id": "P13",
    "input": "user:\n\n  user: indented",
    "ruby": [{ "role": "user", "content": "" }, { "role": "user", "content": "user: indented" }],
    "shows": "indented ≠ header",
  },
  {
    "id": "P14",
    "input": "user:\n\nNote: capital\ntodo: fix this\nmore",
    "ruby": [{ "role": "user", "content": "" }, { "role": "user", "content": "Note: capital" }, {
      "role": "todo",
      "content": "fix this",
    }, { "role": "user", "content": "more" }],
    "shows": "D7 any lowercase word is a role",
  },
  {
    "id": "P15",
    "input": "user:\n\nsee\nhttp://example.com/x\nend",
    "ruby": [{ "role": "user", "content": "" }, { "role": "user", "content": "see" }, {
      "role": "http",
      "content": "//example.com/x",
    }, { "role": "user", "content": "end" }],
    "shows": "D7 URL → role `http`",
  },
  {
    "id": "P16",
    "input": "user:\n\n12:30 meeting",
    "ruby": [{ "role": "user", "content": "" }, { "role": "12", "content": "30 meeting" }],
    "shows": "D7 digits allowed",
  },
  {
    "id": "P17",
    "input": "user:\n\nHere:\n```\nassistant: inside fence\n```\nafter",
    "ruby": [{ "role": "user", "content": "" }, {
      "role": "user",
      "content": "Here:\n```\nassistant: inside fence\n```\nafter",
    }],
    "shows": "fence protects",
  },
  {
    "id": "P18",
    "input": "user:\n\n```\nunterminated\nassistant: y",
    "ruby": [{ "role": "user", "content": "" }, {
      "role": "user",
      "content": "```\nunterminated\nassistant: y",
    }],
    "shows": "unclosed fence runs to EOF",
  },
  {
    "id": "P19",
    "input": "user:\n\n<note>\nassistant: protected\n</note>\nafter",
    "ruby": [{ "role": "user", "content": "" }, {
      "role": "user",
      "content": "<note>\nassistant: protected\n</note>\nafter",
    }],
    "shows": "xml block",
  },
  {
    "id": "P20",
    "input": "user:\n\n<note>\nunclosed here\nassistant: real header",
    "ruby": [{ "role": "user", "content": "" }, {
      "role": "user",
      "content": "<note>\nunclosed here",
    }, { "role": "assistant", "content": "real header" }],
    "shows": "no closing tag → no protection",
  },
  {
    "id": "P21",
    "input": "user:\n\n<b>bold</b> text\nassistant: swallowed?",
    "ruby": [{ "role": "user", "content": "" }, {
      "role": "user",
      "content": "<b>bold</b> text\nassistant: swallowed?",
    }],
    "shows": "D3 one-line element swallows",
    "diverge": "D3",
    "port": [{ "role": "user", "content": "" }, { "role": "user", "content": "<b>bold</b> text" }, {
      "role": "assistant",
      "content": "swallowed?",
    }],
  },
  {
    "id": "P22",
    "input": "user:\n\n</x> earlier\n<x>\nassistant: protected by earlier close?",
    "ruby": [{ "role": "user", "content": "" }, {
      "role": "user",
      "content": "</x> earlier\n<x>\nassistant: protected by earlier close?",
    }],
    "shows": "D3 earlier closing tag counts",
    "diverge": "D3",
    "port": [
      { "role": "user", "content": "" },
      { "role": "user", "content": "</x> earlier\n<x>" },
      { "role": "assistant", "content": "protected by earlier close?" },
    ],
  },
  {
    "id": "P23",
    "input": "user:\n\n<a>\n<a>\n</a>\nassistant: after first close\n</a>",
    "ruby": [{ "role": "user", "content": "" }, { "role": "user", "content": "<a>\n<a>\n</a>" }, {
      "role": "assistant",
      "content": "after first close",
    }, { "role": "user", "content": "</a>" }],
    "shows": "nesting not counted",
  },
  {
    "id": "P24",
    "input": 'user:\n\n<file name="a.txt">\nuser: in file\n</file>',
    "ruby": [{ "role": "user", "content": "" }, {
      "role": "user",
      "content": '<file name="a.txt">\nuser: in file\n</file>',
    }],
    "shows": "`file:` output stays protected",
  },
  {
    "id": "P25",
    "input": "user:\n\n[[\nassistant: protected\n]]\nafter",
    "ruby": [{ "role": "user", "content": "" }, {
      "role": "user",
      "content": "assistant: protected\nafter",
    }],
    "shows": "`[[ ]]` protect; bracket lines removed",
  },
  {
    "id": "P26",
    "input": "user:\n\n[[one liner]]\nassistant: after",
    "ruby": [{ "role": "user", "content": "" }, {
      "role": "user",
      "content": "one liner]]\nassistant: after",
    }],
    "shows": "D4 one-line `[[x]]` never closes",
    "diverge": "D4",
    "port": [{ "role": "user", "content": "" }, { "role": "user", "content": "one liner" }, {
      "role": "assistant",
      "content": "after",
    }],
  },
  {
    "id": "P27",
    "input": "user:\n\nBefore\nshell:-- ls {{{\nfile1\nshell:-- ls }}}\nAfter",
    "ruby": [{ "role": "user", "content": "" }, {
      "role": "user",
      "content": 'Before\n<cmd_output cmd="ls">\nfile1\n</cmd_output>\nAfter',
    }],
    "shows": "cmd block → `cmd_output` tag",
  },
  {
    "id": "P28",
    "input": "user:\n\n<doc>\n```\ncode\n```\n</doc>\nx",
    "ruby": [{ "role": "user", "content": "" }, {
      "role": "user",
      "content": "<doc>\ncode\n</doc>\nx",
    }],
    "shows": "D5 fence lines in xml deleted",
    "diverge": "D5",
    "port": [{ "role": "user", "content": "" }, {
      "role": "user",
      "content": "<doc>\n```\ncode\n```\n</doc>\nx",
    }],
  },
  {
    "id": "P29",
    "input": "user:\n\n```\n[[\n```\nassistant: still protected?",
    "ruby": [{ "role": "user", "content": "" }, {
      "role": "user",
      "content": "```\nassistant: still protected?",
    }],
    "shows": "D5 `[[` hijacks a fence",
    "diverge": "D5",
    "port": [{ "role": "user", "content": "" }, { "role": "user", "content": "```\n[[\n```" }, {
      "role": "assistant",
      "content": "still protected?",
    }],
  },
  {
    "id": "P30",
    "input": "user: hi\n  \n",
    "ruby": [{ "role": "user", "content": "" }, { "role": "user", "content": "hi" }, {
      "role": "user",
      "content": "",
    }],
    "shows": "D6 whitespace tail → empty msg",
    "diverge": "D6",
    "port": [{ "role": "user", "content": "" }, { "role": "user", "content": "hi" }],
  },
  {
    "id": "P31",
    "input": "user:\r\n\r\nhi\r\n",
    "ruby": [{ "role": "user", "content": "" }, { "role": "user", "content": "hi" }],
    "shows": "CRLF ok",
  },
  {
    "id": "P32",
    "input": "# comment\nsystem:\n\n# not stripped\nYou are x",
    "ruby": [{ "role": "user", "content": "# comment" }, {
      "role": "system",
      "content": "# not stripped\nYou are x",
    }],
    "shows": "no comments",
  },
  { "id": "P33", "input": "", "ruby": [], "shows": "empty text" },
];
