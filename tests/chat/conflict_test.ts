/**
 * `mergeConflictLine` ([TS-FIX] `chat.md` §7, R86-3): the line of the first
 * git merge conflict in a chat's text — the whole `<<<<<<<` / `=======` /
 * `>>>>>>>` sequence, at column 0, outside ``` fences.
 */
import assert from "node:assert/strict";
import { mergeConflict, mergeConflictLine } from "../../src/chat/conflict.ts";
import { parse } from "../../src/chat/parse.ts";
import { print } from "../../src/chat/print.ts";
import { CONFLICTED_TURNS as CONFLICTED, DISCUSSED_CONFLICT } from "../support/merge_conflict.ts";

Deno.test("mergeConflictLine: a merge's markers are found at the <<<<<<< line", () => {
  assert.equal(mergeConflictLine(CONFLICTED), 1);
  assert.equal(mergeConflictLine("system: s\n\n" + CONFLICTED), 3);
  // CRLF files; bare markers (no labels); diff3's ||||||| base section
  assert.equal(mergeConflictLine(CONFLICTED.replaceAll("\n", "\r\n")), 1);
  assert.equal(mergeConflictLine("user: q\n<<<<<<<\na\n=======\nb\n>>>>>>>\n"), 2);
  assert.equal(
    mergeConflictLine("<<<<<<< ours\na\n||||||| base\no\n=======\nb\n>>>>>>> theirs\n"),
    1,
  );
  // the first of two conflicts
  assert.equal(mergeConflictLine("x\n" + CONFLICTED + "y\n" + CONFLICTED), 2);
});

Deno.test("mergeConflictLine: fenced markers, a lone =======, indented or partial sequences are no conflict", () => {
  const fenced = "user:\n\nHow do I resolve this?\n\n```\n" + CONFLICTED + "```\n";
  assert.equal(mergeConflictLine(fenced), undefined);
  assert.equal(mergeConflictLine("user:\n\n  ```diff\n" + CONFLICTED + "  ```\n"), undefined);
  // a markdown setext heading
  assert.equal(mergeConflictLine("user:\n\nTitle\n=======\n\ntext\n"), undefined);
  // not at column 0, or labels glued to the marker
  assert.equal(mergeConflictLine(CONFLICTED.replace("<<<<<<< HEAD", " <<<<<<< HEAD")), undefined);
  assert.equal(mergeConflictLine(CONFLICTED.replace("<<<<<<< HEAD", "<<<<<<<<HEAD")), undefined);
  // the sequence must be complete and in order
  assert.equal(mergeConflictLine(CONFLICTED.replace(">>>>>>> feature", "end")), undefined);
  assert.equal(mergeConflictLine(CONFLICTED.replace("=======", "=== ===")), undefined);
  assert.equal(mergeConflictLine(">>>>>>> x\n=======\n<<<<<<< y\n"), undefined);
  assert.equal(mergeConflictLine("user: hi\n"), undefined);
  // after a fence closes, markers count again
  assert.equal(mergeConflictLine("```\ncode\n```\n" + CONFLICTED), 4);
});

Deno.test("mergeConflictLine leaves parsing alone: the markers are still text of the messages", () => {
  const chat = parse(CONFLICTED);
  assert.match(String(chat.find((m) => m.role === "assistant")!.content), /ours answer\n=======/);
});

Deno.test("mergeConflict: a role header between <<<<<<< and >>>>>>> is a merge of turns; none is text in a message (R90-2)", () => {
  // the merge of two added turns: headers on both sides
  assert.deepEqual(mergeConflict("system: s\n\n" + CONFLICTED), { line: 3, header: 4 });
  // a block header on one side only is enough
  assert.deepEqual(mergeConflict("<<<<<<< a\nx\n=======\nassistant:\n\ny\n>>>>>>> b\n"), {
    line: 1,
    header: 4,
  });
  // a conflict pasted into a message: no header in it
  assert.deepEqual(mergeConflict(DISCUSSED_CONFLICT), { line: 5 });
  assert.equal(mergeConflictLine(DISCUSSED_CONFLICT), 5);
  // the printer escapes a content line that looks like a header, and the markers (R95-2):
  // no conflict left in the file; without the marker escapes, still text
  const quoted = print([{ role: "assistant", content: CONFLICTED.trimEnd() }]);
  assert.match(quoted, /^\\user: ours question$/m);
  assert.match(quoted, /^\\<<<<<<< HEAD$/m);
  assert.equal(mergeConflict(quoted), undefined);
  const unescaped = quoted.replace(/^\\(?=[<=>])/gm, "");
  assert.deepEqual(mergeConflict(unescaped), {
    line: unescaped.split("\n").indexOf("<<<<<<< HEAD") + 1,
  });
  // a fenced header is no header; an indented one is none for the parser either
  assert.deepEqual(mergeConflict("<<<<<<< a\n```\nuser:\n```\n=======\n>>>>>>> b\n"), { line: 1 });
  assert.deepEqual(mergeConflict("<<<<<<< a\n  user: x\n=======\n>>>>>>> b\n"), { line: 1 });
  // a header-spanning conflict after a textual one is the one reported
  assert.deepEqual(mergeConflict(DISCUSSED_CONFLICT + CONFLICTED), { line: 10, header: 11 });
  assert.equal(mergeConflict("user: hi\n"), undefined);
});

Deno.test("mergeConflict: word: lines inside a [[ ]] block or a tag are text, as the parser reads them; bare, they are headers (R135-1)", () => {
  const quoted = "<<<<<<< HEAD\nport: 80\n=======\nport: 8080\n>>>>>>> feature\n";
  const block = `user:\n\nFix this config:\n[[\n${quoted}]]\n`;
  const said = (t: string) => parse(t).filter((m) => m.content !== ""); // the leading empty user
  assert.equal(said(block).length, 1, "one message: the block is its text");
  assert.deepEqual(mergeConflict(block), { line: 5 });
  const tag = `user:\n\n<file name="a.ini">\n${quoted}</file>\n`;
  assert.equal(said(tag).length, 1);
  assert.deepEqual(mergeConflict(tag), { line: 4 });
  // the same lines bare are read as headers by the parser: a merge of turns
  assert.deepEqual(mergeConflict(`user:\n\n${quoted}`), { line: 3, header: 4 });
});
