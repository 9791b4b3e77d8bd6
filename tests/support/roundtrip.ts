/**
 * What a printed chat must read back as, in the port and in the Ruby parser
 * model: shared by the printer's properties and case tables.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Chat, Message } from "../../src/chat/types.ts";
import { rubyStrip } from "../../src/chat/text.ts";
import { rubyParse } from "./parse_ruby.ts";

const EMPTY = { role: "user", content: "" };

/** What the parser gives back for a content: a trimmed string. */
function expectedContent(c: unknown): string {
  if (c === null || c === undefined) return "";
  if (typeof c === "object") return JSON.stringify(c);
  return rubyStrip(String(c));
}

/** `parse(print(chat))` as promised: contents as trimmed strings, leading empty user message. */
export function expectedRead(chat: readonly Message[]): Chat {
  const m = chat.map((x) => ({ role: x.role, content: expectedContent(x.content) }));
  if (m.length === 0 || (m[0]!.role === "user" && m[0]!.content === "")) return m;
  return [EMPTY, ...m];
}

/**
 * Ruby reads the same messages in the same order with the same roles, each
 * content with the same lines up to backslashes (escaped lines show theirs);
 * it may leave out empty messages (D27), nothing else.
 */
export function assertRubyReads(printed: string, expected: Chat): void {
  const got = rubyParse(printed);
  const lines = (s: unknown) => String(s).split("\n").map((l) => l.replaceAll("\\", ""));
  const same = (a: Message, b: Message) =>
    a.role === b.role && (a.content === "") === (b.content === "") &&
    lines(a.content).join("\n") === lines(b.content).join("\n");
  let j = 0;
  for (const [i, want] of expected.entries()) {
    if (j < got.length && same(got[j]!, want)) j++;
    else if (want.content !== "" || i === 0) {
      assert.fail(`Ruby reads ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
    }
  }
  assert.equal(j, got.length, `Ruby reads extra messages: ${JSON.stringify(got.slice(j))}`);
}
