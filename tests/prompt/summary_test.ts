import assert from "node:assert/strict";
import { promptSummary } from "../../src/prompt/summary.ts";
import { shortenToolsEpoch } from "../../src/prompt/shorten_tools_epoch.ts";
import { epoch, pairs } from "./support.ts";

Deno.test("promptSummary counts kept, truncated, dropped and added messages (PS-7 N=7)", () => {
  const input = pairs(7);
  const out = shortenToolsEpoch(input, epoch(4, 1, 2, 2));
  // system user N! C4t O4t C5t O5t C6 O6 C7 O7
  const s = promptSummary(input, out);
  assert.deepEqual(
    { kept: s.kept, truncated: s.truncated, dropped: s.dropped, added: s.added },
    { kept: 6, truncated: 4, dropped: 6, added: 1 },
  );
  assert.equal(s.messagesBefore, 16);
  assert.equal(s.messagesAfter, 11);
  assert.equal(s.charsBefore, 3 + 2 + 7 * (343 + 535));
  assert.ok(s.charsAfter < s.charsBefore);
});

Deno.test("promptSummary: identical lists, and non-string contents counted as JSON", () => {
  const a = [{ role: "user", content: { x: 1 } }, { role: "user", content: null }];
  const s = promptSummary(a, a.slice());
  assert.deepEqual([s.kept, s.dropped, s.added, s.charsBefore], [2, 0, 0, 7]);
});
