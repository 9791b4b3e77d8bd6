/**
 * The check a `-c` chat that is also `-o` gets at append time (R101-4):
 * unchanged, the messages are given back as they are; appended to or
 * rewritten meanwhile, a warning names how and the turn's `_c` are rebased
 * on the file's current meta. (Two real runs: `ask_chat_changed_test.ts`.)
 */
import assert from "node:assert/strict";
import { chatSnapshot, checkedTurn } from "../../src/cli/chat_changed.ts";
import type { Message } from "../../src/chat/types.ts";

const bytes = (s: string) => new TextEncoder().encode(s);
const READ = "user:\n\nq0\n\nmeta: pt=3 ct=1 tt=4 pt_c=3 ct_c=1 tt_c=4 cct_c=0 cwt_c=0 rt_c=0\n";
const TURN: Message[] = [
  { role: "user", content: "q1" },
  { role: "meta", content: "pt=20 ct=7 tt=27 pt_c=23 ct_c=8 tt_c=31 cct_c=0 cwt_c=0 rt_c=0" },
  { role: "assistant", content: "a1" },
];

function check(now: string) {
  const warnings: string[] = [];
  const seen = chatSnapshot(bytes(READ));
  const out = checkedTurn(TURN, bytes(now), {
    seen,
    shown: "c.chat",
    warn: (m) => warnings.push(m),
  });
  return { out, warnings };
}

Deno.test("an unchanged chat gets the turn as it is, without a word", () => {
  const { out, warnings } = check(READ);
  assert.equal(out, TURN);
  assert.deepEqual(warnings, []);
});

Deno.test("a chat rewritten meanwhile: told, and the turn's _c rebased on what the file holds now", () => {
  const { out, warnings } = check("user:\n\nother\n");
  assert.deepEqual(warnings, [
    '"c.chat" changed while this ask ran (it was edited or replaced): ' +
    "this turn was answered without the change",
  ]);
  assert.equal(out[1]!.content, "pt=20 ct=7 tt=27 pt_c=20 ct_c=7 tt_c=27 cct_c=0 cwt_c=0 rt_c=0");
  assert.equal(out[0], TURN[0]);
});

Deno.test("a chat appended to without a meta: told, the _c left as they are", () => {
  const { out, warnings } = check(READ + "\nuser:\n\nnote\n");
  assert.match(warnings[0]!, /\(another run appended to it\): this turn was answered without it$/);
  assert.equal(out, TURN);
});
