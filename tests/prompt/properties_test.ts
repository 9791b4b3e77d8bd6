/**
 * Invariants of the strategies as fast-check properties
 * (`prompt-strategies.md` §5 "Invariant to test", §4 pair consistency, §1
 * non-mutation).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import type { Message } from "../../src/chat/types.ts";
import { preparePrompt } from "../../src/prompt/prepare.ts";
import { shortenTools } from "../../src/prompt/shorten_tools.ts";
import { epochRegions, shortenToolsEpoch } from "../../src/prompt/shorten_tools_epoch.ts";
import { canonicalJson } from "../../src/util/canonical_json.ts";
import { epoch, settings } from "./support.ts";

/** One step of an agent session: a tool pair, maybe followed by assistant text. */
interface Step {
  name: string;
  arg: string;
  out: string;
  text: string | null;
}

const text = (max: number) =>
  fc.tuple(fc.constantFrom("a", "é", "😀", "x"), fc.nat({ max })).map(([c, n]) => c.repeat(n));

const step: fc.Arbitrary<Step> = fc.record({
  name: fc.constantFrom("read", "grep", "ls"),
  arg: fc.oneof(text(500), fc.constantFrom("same", "other")),
  out: text(1200),
  text: fc.option(fc.constantFrom("thinking", "next"), { freq: 4 }),
});

function build(steps: readonly Step[]): Message[] {
  const msgs: Message[] = [{ role: "system", content: "sys" }, { role: "user", content: "go" }];
  steps.forEach((s, i) => {
    const id = `call_${i}`;
    msgs.push({
      role: "function_call",
      content: JSON.stringify({ name: s.name, arguments: { q: s.arg }, id }),
    });
    msgs.push({ role: "function_call_output", content: JSON.stringify({ id, content: s.out }) });
    if (s.text !== null) msgs.push({ role: "assistant", content: s.text });
  });
  return msgs;
}

const epochSettings = fc.record({
  threshold: fc.integer({ min: 0, max: 8 }),
  full: fc.integer({ min: 0, max: 4 }),
  compacted: fc.integer({ min: 0, max: 6 }),
  size: fc.integer({ min: 1, max: 5 }),
});

const keyOf = (s: Step) => `${s.name}\u0000${canonicalJson({ q: s.arg })}`;
const same = (a: Message, b: Message) => JSON.stringify(a) === JSON.stringify(b);

Deno.test("epoch: within an epoch each prompt is an element-wise prefix of the next", () => {
  let checked = 0;
  fc.assert(
    fc.property(
      fc.array(step, { minLength: 1, maxLength: 40, size: "max" }),
      epochSettings,
      (steps, e) => {
        const s = epoch(e.threshold, e.full, e.compacted, e.size);
        const T = steps.length - 1; // before appending the last step
        if (T <= e.threshold) return;
        if (Math.floor((T - e.threshold - 1) / e.size) !== Math.floor((T - e.threshold) / e.size)) {
          return; // epoch boundary: no claim
        }
        const last = steps.at(-1)!;
        const before = steps.slice(0, -1).filter((x) => keyOf(x) === keyOf(last)).length;
        if (before >= 2) return; // PS-9: the protection moves
        const a = shortenToolsEpoch(build(steps.slice(0, -1)), s);
        const b = shortenToolsEpoch(build(steps), s);
        assert.ok(a.length <= b.length);
        a.forEach((m, i) => assert.ok(same(m, b[i]!), `message ${i} differs`));
        if (a.some((m) => String(m.content).startsWith("==="))) checked++;
      },
    ),
    { numRuns: 500 },
  );
  assert.ok(checked >= 100, `only ${checked} compacted cases checked`);
});

Deno.test("epoch: with the defaults, 300 growing prompts change prefix only at epoch boundaries", () => {
  // the real shape: one long session, checked step by step
  const steps: Step[] = [];
  for (let i = 0; i < 300; i++) {
    steps.push({
      name: "read",
      arg: `file_${i}.txt` + "p".repeat(i % 7 * 50),
      out: "o".repeat(200 + (i * 997) % 8000),
      text: null,
    });
  }
  const s = settings();
  let previous = shortenToolsEpoch(build(steps.slice(0, 1)), s);
  let breaks = 0;
  for (let n = 2; n <= steps.length; n++) {
    const next = shortenToolsEpoch(build(steps.slice(0, n)), s);
    const prefix = previous.every((m, i) => next[i] !== undefined && same(m, next[i]!));
    const r = epochRegions(n - 1, s);
    const r2 = epochRegions(n, s);
    const sameEpoch = r !== null && r2 !== null && r.epoch === r2.epoch;
    if (sameEpoch) assert.ok(prefix, `prefix broken inside an epoch at n=${n}`);
    if (!prefix) breaks++;
    previous = next;
  }
  // boundaries: entering compaction at 51, then every 20 → 51, 71, …, 291 = 13
  assert.equal(breaks, 13);
});

/** Ids of calls and outputs present in a list. */
function idSets(ms: readonly Message[]) {
  const calls = new Set<string>();
  const outs = new Set<string>();
  for (const m of ms) {
    if (m.role !== "function_call" && m.role !== "function_call_output") continue;
    const id = JSON.parse(m.content as string).id;
    (m.role === "function_call" ? calls : outs).add(id);
  }
  return { calls, outs };
}

const shortenSettings = fc.record({
  fullToolCalls: fc.integer({ min: 0, max: 3 }),
  fullToolOutputs: fc.integer({ min: 0, max: 4 }),
  maxToolCalls: fc.integer({ min: 0, max: 10 }),
  maxToolOutputs: fc.integer({ min: 0, max: 10 }),
  maxToolChars: fc.integer({ min: 0, max: 5000 }),
});

/** Sessions where some calls are issued in parallel (C1 C2 O1 O2). */
function buildParallel(steps: readonly Step[], parallel: readonly boolean[]): Message[] {
  const msgs = build(steps);
  for (let i = 2; i + 3 < msgs.length; i++) {
    if (
      parallel[i % parallel.length] && msgs[i]!.role === "function_call_output" &&
      msgs[i + 1]!.role === "function_call"
    ) {
      [msgs[i], msgs[i + 1]] = [msgs[i + 1]!, msgs[i]!]; // C1 C2 O1 O2
      i += 2;
    }
  }
  return msgs;
}

Deno.test("no output whose call was dropped, no call whose output was dropped (both strategies)", () => {
  fc.assert(
    fc.property(
      fc.array(step, { maxLength: 30, size: "max" }),
      fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
      shortenSettings,
      epochSettings,
      (steps, parallel, st, e) => {
        const input = buildParallel(steps, parallel);
        const s = { ...epoch(e.threshold, e.full, e.compacted, e.size), ...st };
        for (const out of [shortenTools(input, s), shortenToolsEpoch(input, s)]) {
          const { calls, outs } = idSets(out);
          assert.deepEqual([...calls].sort(), [...outs].sort());
        }
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("the stored chat deep-equals its copy after preparePrompt (every strategy)", () => {
  fc.assert(
    fc.property(fc.array(step, { maxLength: 25, size: "max" }), epochSettings, (steps, e) => {
      const input = build(steps);
      const copy = structuredClone(input);
      const cfg = {
        env: {},
        epochToolCallThreshold: e.threshold,
        epochFullToolCalls: e.full,
        epochCompactedToolCalls: e.compacted,
        epochSize: e.size,
        maxToolChars: 300,
        fullToolOutputs: 1,
      };
      for (const strategy of [null, "shorten_tools", "none", "shorten_tools,shorten_tools_epoch"]) {
        preparePrompt(input, strategy, cfg);
        assert.deepEqual(input, copy);
      }
    }),
    { numRuns: 150 },
  );
});

Deno.test("epoch output is bounded: tool pairs kept ≤ keepFull + compacted + protected", () => {
  fc.assert(
    fc.property(fc.array(step, { maxLength: 40, size: "max" }), epochSettings, (steps, e) => {
      const s = epoch(e.threshold, e.full, e.compacted, e.size);
      const input = build(steps);
      const out = shortenToolsEpoch(input, s);
      const r = epochRegions(steps.length, s);
      const keys = new Map<string, number>();
      for (const x of steps) keys.set(keyOf(x), (keys.get(keyOf(x)) ?? 0) + 1);
      const repeated = [...keys.values()].filter((c) => c >= 2).length;
      const kept = out.filter((m) => m.role === "function_call_output").length;
      if (r === null) assert.equal(kept, steps.length);
      else assert.ok(kept <= r.truncateTo + repeated);
      // non-tool messages are all kept, in order (plus at most one notice)
      const plain = (ms: Message[]) =>
        ms.filter((m) => !m.role.startsWith("function_call")).map((m) => m.content);
      const notice = out.length > 0 && plain(out).some((c) => String(c).startsWith("==="));
      assert.equal(plain(out).length, plain(input).length + (notice ? 1 : 0));
    }),
    { numRuns: 200 },
  );
});
