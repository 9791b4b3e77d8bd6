/**
 * The Ruby parser model of `tests/support/parse_ruby.ts` (used by the
 * printer's properties to check what Ruby reads) reproduces every Ruby value
 * of the spec's machine-checked tables: §11.1 parse rows, and §11.2 round
 * trips through a model of the Ruby printer (§3.1).
 */
import assert from "node:assert/strict";
import type { Message } from "../../src/chat/mod.ts";
import { rubyParse } from "../support/parse_ruby.ts";
import { PARSE_ROWS } from "./spec_rows.ts";
import { ROUND_TRIP_ROWS } from "./spec_roundtrip_rows.ts";

const RUBY_INLINE = new Set([
  "option",
  "previous_response_id",
  "function_call",
  "function_call_output",
  "meta",
]);

/** The Ruby printer, `chat.md` §3.1. */
function rubyPrint(chat: Message[]): string {
  const render = (m: Message) => {
    const r = String(m.role);
    const c = m.content;
    if (c !== null && typeof c === "object") return `${r}:\n\n${JSON.stringify(c)}`;
    if (c === null || c === undefined || c === "") return `${r}:`;
    if (RUBY_INLINE.has(r)) return `${r}: ${String(c)}`;
    return `${r}:\n\n` + String(c).replace(/\n(?=[a-z]+:[ \t\n\v\f\r])/g, "\n\\");
  };
  return "\n" + chat.map(render).join("\n\n");
}

for (const row of PARSE_ROWS) {
  Deno.test(`Ruby model: parse ${row.id} gives the Ruby value`, () => {
    assert.deepEqual(rubyParse(row.input), row.ruby);
  });
}

for (const row of ROUND_TRIP_ROWS) {
  Deno.test(`Ruby model: print→parse ${row.id} gives the Ruby value`, () => {
    assert.deepEqual(rubyParse(rubyPrint(row.input)), row.ruby);
  });
}

Deno.test("Ruby model: §11.1 initial-role examples", () => {
  assert.deepEqual(rubyParse("user: a", "system"), [
    { role: "system", content: "" },
    { role: "user", content: "a" },
  ]);
  assert.deepEqual(rubyParse("hello", "system"), [{ role: "system", content: "hello" }]);
});
