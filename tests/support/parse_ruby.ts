/**
 * A model of the **Ruby** Scout-AI parser for tests: `chat.md` §2 with every
 * [parity] rule and none of the port's DIVERGE fixes (§2.3 rows 1–10 read
 * literally, §2.4 flush, §2.5 untrimmed tail). The printer's properties use
 * it to check that Ruby reads what the port prints as the same messages.
 * It is checked against the Ruby values of the §11.1 table
 * (`tests/chat/roundtrip_ruby_test.ts`).
 *
 * @module
 */
import type { Chat } from "../../src/chat/types.ts";
import { isBlank, rubyStrip } from "../../src/chat/text.ts";
import {
  CMD_CLOSE,
  CMD_CLOSE_REPLACE,
  CMD_OPEN,
  CMD_OPEN_REPLACE,
  XML_CLOSE,
  XML_OPEN,
} from "../../src/chat/parse.ts";

type Mode = "none" | "fence" | "square" | "xml";

/**
 * Parses `text` as the Ruby `Chat.parse` does (`chat.md` §2, parity rules).
 *
 * @param text chat text
 * @param initialRole role of text before the first header
 * @returns the messages Ruby would read
 */
export function rubyParse(text: string, initialRole = "user"): Chat {
  const lines = text.split("\n");
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const out: Chat = [];
  let role = initialRole;
  let buf = "";
  let mode: Mode = "none";
  const stack: string[] = [];
  const add = (l: string) => {
    buf += "\n" + l;
  };
  const addUnlessBlank = (l: string) => {
    if (!isBlank(l)) add(l);
  };

  for (const line of lines) {
    const s = rubyStrip(line);
    // Row 1.
    if (s.startsWith("```")) {
      if (mode === "none") {
        mode = "fence";
        add(line);
      } else if (mode === "fence") {
        mode = "none";
        add(line);
      }
      continue;
    }
    // Row 2.
    if (mode === "square" && s.endsWith("]]")) {
      mode = "none";
      addUnlessBlank(line.replace("]]", ""));
      continue;
    }
    // Rows 3 and 4 fire in any mode.
    if (s.startsWith("[[")) {
      mode = "square";
      addUnlessBlank(line.replace("[[", ""));
      continue;
    }
    if (CMD_OPEN.test(s)) {
      mode = "square";
      addUnlessBlank(
        line.replace(CMD_OPEN_REPLACE, (_m, cmd: string) => `<cmd_output cmd="${cmd}">`),
      );
      continue;
    }
    // Row 5.
    if (mode === "square" && CMD_CLOSE.test(s)) {
      mode = "none";
      addUnlessBlank(line.replace(CMD_CLOSE_REPLACE, "</cmd_output>"));
      continue;
    }
    // Row 6.
    if (mode !== "none") {
      if (mode === "xml") {
        const m = XML_CLOSE.exec(s);
        if (m !== null) {
          if (m[1] === stack[stack.length - 1]) stack.pop();
          if (stack.length === 0) mode = "none";
        }
      }
      add(line);
      continue;
    }
    // Row 7: a closing tag anywhere in the whole text.
    const open = XML_OPEN.exec(s);
    if (open !== null && text.includes(`</${open[1]}>`)) {
      stack.push(open[1]!);
      mode = "xml";
      add(line);
      continue;
    }
    // Rows 8–10.
    const header = /^[a-z0-9_]+:/.exec(line);
    if (header !== null) {
      const name = header[0].slice(0, -1);
      const inline = rubyStrip(line.slice(header[0].length));
      const t = rubyStrip(buf);
      if (t !== "") out.push({ role, content: t });
      else if (out.length === 0) out.push({ role, content: "" });
      buf = "";
      if (inline === "") role = name;
      else {
        out.push({ role: name, content: inline });
        if (name === "previous_response_id" || name === "agent") role = "user";
      }
    } else if (/^\\[a-z0-9_]+:/.test(line)) {
      add(line.slice(1));
    } else {
      add(line);
    }
  }
  if (buf !== "") out.push({ role, content: rubyStrip(buf) });
  return out;
}
