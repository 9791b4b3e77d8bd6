import assert from "node:assert/strict";
import { epochRegions, shortenToolsEpoch } from "../../src/prompt/shorten_tools_epoch.ts";
import type { Message } from "../../src/chat/types.ts";
import { epoch, notation, noticeCounts, pairs, settings } from "./support.ts";

/** Pairs kept whole / compacted / dropped, from the actual output. */
function census(input: Message[], out: Message[]) {
  const labels = notation(out, input).split(" ");
  const outs = labels.filter((l) => l.startsWith("O"));
  const whole = outs.filter((l) => !l.endsWith("t")).length;
  const compacted = outs.length - whole;
  const total = input.filter((m) => m.role === "function_call_output").length;
  const firstKept = outs.length === 0 ? null : Number(outs[0]!.replace(/\D/g, ""));
  return { whole, compacted, dropped: total - outs.length, firstKept };
}

Deno.test("region table for the defaults (50/20/80/20)", () => {
  const table: [number, number | null, number, number, number][] = [
    // T, pinned, full, compacted, dropped
    [50, null, 50, 0, 0],
    [51, 50, 21, 30, 0],
    [70, 50, 40, 30, 0],
    [71, 70, 21, 50, 0],
    [90, 70, 40, 50, 0],
    [91, 90, 21, 70, 0],
    [110, 90, 40, 70, 0],
    [111, 110, 21, 80, 10],
    [130, 110, 40, 80, 10],
    [131, 130, 21, 80, 30],
    [150, 130, 40, 80, 30],
    [151, 150, 21, 80, 50],
  ];
  const s = settings();
  for (const [T, pinned, full, compacted, dropped] of table) {
    assert.equal(epochRegions(T, s)?.pinned ?? null, pinned, `pinned at T=${T}`);
    const input = pairs(T);
    const out = shortenToolsEpoch(input, s);
    const c = census(input, out);
    assert.deepEqual([c.whole, c.compacted, c.dropped], [full, compacted, dropped], `T=${T}`);
    if (pinned === null) assert.deepEqual(out, input);
    else assert.deepEqual(noticeCounts(out), [2 * compacted, 2 * dropped]);
  }
});

Deno.test("documentation example (100/10/40/10), recomputed: nothing happens at T = 100", () => {
  const s = epoch(100, 10, 40, 10);
  const table: [number, number | null, number | null, number, number, number, number][] = [
    // T, pinned, newCalls, whole, compacted, dropped, first kept pair
    [100, null, null, 100, 0, 0, 1],
    [101, 100, 1, 11, 40, 50, 51],
    [105, 100, 5, 15, 40, 50, 51],
    [110, 100, 10, 20, 40, 50, 51],
    [111, 110, 1, 11, 40, 60, 61],
    [120, 110, 10, 20, 40, 60, 61],
    [121, 120, 1, 11, 40, 70, 71],
  ];
  for (const [T, pinned, newCalls, whole, compacted, dropped, first] of table) {
    const r = epochRegions(T, s);
    assert.equal(r?.pinned ?? null, pinned);
    assert.equal(r?.newCalls ?? null, newCalls);
    const input = pairs(T);
    const c = census(input, shortenToolsEpoch(input, s));
    assert.deepEqual(
      [c.whole, c.compacted, c.dropped, c.firstKept],
      [whole, compacted, dropped, first],
      `T=${T}`,
    );
  }
});

Deno.test("PS-7: epochs of 2 over threshold 4 (notice before the first kept call [TS-FIX])", () => {
  const s = epoch(4, 1, 2, 2);
  const expected: Record<number, [string, [number, number] | null]> = {
    4: ["system user C1 O1 C2 O2 C3 O3 C4 O4", null],
    5: ["system user N! C2t O2t C3t O3t C4 O4 C5 O5", [4, 2]],
    6: ["system user N! C2t O2t C3t O3t C4 O4 C5 O5 C6 O6", [4, 2]],
    7: ["system user N! C4t O4t C5t O5t C6 O6 C7 O7", [4, 6]],
    8: ["system user N! C4t O4t C5t O5t C6 O6 C7 O7 C8 O8", [4, 6]],
    9: ["system user N! C6t O6t C7t O7t C8 O8 C9 O9", [4, 10]],
  };
  const outs: Record<number, Message[]> = {};
  for (const [n, [text, counts]] of Object.entries(expected)) {
    const input = pairs(Number(n));
    const out = shortenToolsEpoch(input, s);
    outs[Number(n)] = out;
    assert.equal(notation(out, input), text, `N=${n}`);
    assert.deepEqual(noticeCounts(out), counts);
  }
  // prefix checks: within an epoch yes, across boundaries no
  assert.ok(isPrefix(outs[5]!, outs[6]!));
  assert.ok(isPrefix(outs[7]!, outs[8]!));
  assert.ok(!isPrefix(outs[4]!, outs[5]!));
  assert.ok(!isPrefix(outs[6]!, outs[7]!));
  assert.ok(!isPrefix(outs[8]!, outs[9]!));
});

Deno.test("PS-7 Ruby placement would split a call from its output; ours never does", () => {
  const input = pairs(5);
  const out = shortenToolsEpoch(input, epoch(4, 1, 2, 2));
  const i = out.findIndex((m) => String(m.content).startsWith("=== Context Management"));
  assert.equal(out[i + 1]!.role, "function_call");
  assert.notEqual(out[i - 1]!.role, "function_call");
});

const same = "same" + "z".repeat(296);

Deno.test("PS-8: the newest instance of a repeated call is kept whole", () => {
  const input = pairs(7, {
    arg: (i) => (i === 2 || i === 3 ? same : undefined) ?? `a${i}` + "x".repeat(298),
  });
  const out = shortenToolsEpoch(input, epoch(4, 1, 1, 2));
  // Ruby: system user C3 N! O3 C5t O5t C6 O6 C7 O7
  assert.equal(notation(out, input), "system user N! C3 O3 C5t O5t C6 O6 C7 O7");
  assert.deepEqual(noticeCounts(out), [2, 6]);
});

Deno.test("PS-9: a third instance moves the protection (prefix broken), two far apart do not", () => {
  const s = epoch(4, 1, 2, 2);
  const repeated = (ids: number[]) => (i: number) =>
    ids.includes(i) ? same : `a${i}` + "x".repeat(298);
  const in5 = pairs(5, { arg: repeated([1, 2]) });
  const out5 = shortenToolsEpoch(in5, s);
  assert.equal(notation(out5, in5), "system user N! C2 O2 C3t O3t C4 O4 C5 O5");
  const in6 = pairs(6, { arg: repeated([1, 2, 6]) });
  const out6 = shortenToolsEpoch(in6, s);
  assert.equal(notation(out6, in6), "system user N! C2t O2t C3t O3t C4 O4 C5 O5 C6 O6");
  assert.ok(!isPrefix(out5, out6));
  const a5 = pairs(5, { arg: repeated([1, 6]) });
  const a6 = pairs(6, { arg: repeated([1, 6]) });
  assert.ok(isPrefix(shortenToolsEpoch(a5, s), shortenToolsEpoch(a6, s)));
});

Deno.test("PS-10: interleaved assistant text stays, even in the dropped region", () => {
  const input = pairs(5, {
    arg: (i) => `a${i}`,
    after: (i) => [{ role: "assistant", content: `step ${i}` }],
  });
  const out = shortenToolsEpoch(input, epoch(4, 1, 1, 2));
  // Ruby: system user assistant assistant C3 N! O3t assistant C4 O4 assistant C5 O5 assistant
  assert.equal(
    notation(out, input),
    "system user assistant assistant N! C3 O3t assistant C4 O4 assistant C5 O5 assistant",
  );
  assert.deepEqual(noticeCounts(out), [1, 4]);
});

Deno.test("early exits: threshold not passed, nothing to keep, size ≤ 0 → a copy of the input", () => {
  const input = pairs(6);
  for (const s of [epoch(6, 1, 2, 2), epoch(4, 0, 0, 2), epoch(4, 1, 2, 0), epoch(4, 1, 2, -3)]) {
    const out = shortenToolsEpoch(input, s);
    assert.deepEqual(out, input);
    assert.notEqual(out, input);
  }
});

Deno.test("[TS-FIX] only parseable outputs count and get positions", () => {
  const input = pairs(4);
  input.push({ role: "function_call_output", content: "not json" });
  input.push({ role: "function_call_output", content: { id: "x" } });
  input.push({ role: "function_call", content: null });
  // T = 4 (not 6) → threshold 4 not passed
  assert.deepEqual(shortenToolsEpoch(input, epoch(4, 1, 2, 2)), input);
  const five = pairs(5);
  five.splice(2, 0, { role: "function_call_output", content: "oops" });
  const out = shortenToolsEpoch(five, epoch(4, 1, 2, 2));
  // the unusable output stays where it was; being a tool message, the notice goes before it
  assert.equal(notation(out, five), "system user N! O? C2t O2t C3t O3t C4 O4 C5 O5");
});

Deno.test("parallel calls pair by id: a call takes its own output's position", () => {
  // C1 C2 O1 O2, then 3 sequential pairs; threshold 4, full 1, compacted 1, size 2 → T=5:
  // pinned 4, newCalls 1, keepFull 2, truncateTo 3 → r 1-2 whole, r 3 compacted, r 4-5 dropped
  const p = pairs(5);
  const input = [p[0]!, p[1]!, p[2]!, p[4]!, p[3]!, p[5]!, ...p.slice(6)];
  const out = shortenToolsEpoch(input, epoch(4, 1, 1, 2));
  assert.equal(notation(out, input), "system user N! C3t O3t C4 O4 C5 O5");
  // (Ruby's "outputs seen so far" would give C2 the position of O1 and drop it: orphan O2)
});

Deno.test("a pending call at the end (no output yet) is kept whole", () => {
  const input = pairs(5);
  input.push({
    role: "function_call",
    content: JSON.stringify({ name: "f", arguments: { q: "z".repeat(500) }, id: "c6" }),
  });
  const out = shortenToolsEpoch(input, epoch(4, 1, 2, 2));
  assert.equal(out.at(-1), input.at(-1));
});

Deno.test("the input is never mutated and unchanged messages are the same objects", () => {
  const input = pairs(9);
  const copy = structuredClone(input);
  const out = shortenToolsEpoch(input, epoch(4, 1, 2, 2));
  assert.deepEqual(input, copy);
  assert.ok(out.includes(input.at(-1)!));
});

function isPrefix(a: readonly Message[], b: readonly Message[]): boolean {
  return a.length <= b.length && a.every((m, i) => JSON.stringify(m) === JSON.stringify(b[i]));
}
