/**
 * Number formatting of the `prov` renderers: `toFixedEven` rounds the exact
 * binary value half to even (C's `printf("%.Nf")`), checked against an exact
 * rational oracle; its fast path (plain `toFixed` away from ties) must never
 * differ from it.
 */
import { logLabel } from "../../src/provenance/report.ts";
import { isTopLevelAgentLog, LABEL_MAX, middleShorten } from "../../src/provenance/labels.ts";
import { basename, dirname } from "node:path";
import { shownLabel } from "../../src/provenance/render_tree.ts";
import { emptyTokens } from "../../src/chat/trace.ts";
import assert from "node:assert/strict";
import fc from "fast-check";
import { human, padLeft, padRight, shortTokens, toFixedEven } from "../../src/provenance/format.ts";

/** `%.Nf` by exact rational arithmetic on the double's value: the oracle. */
function printfF(x: number, digits: number): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const hi = view.getUint32(0);
  const biased = (hi >>> 20) & 0x7ff;
  const frac = (BigInt(hi & 0xfffff) << 32n) | BigInt(view.getUint32(4));
  const mant = biased === 0 ? frac : frac | (1n << 52n);
  const exp = biased === 0 ? -1074 : biased - 1075;
  const num = mant * 10n ** BigInt(digits);
  let q = exp >= 0 ? num << BigInt(exp) : num / (1n << BigInt(-exp));
  if (exp < 0) {
    const den = 1n << BigInt(-exp);
    const twice = (num % den) * 2n;
    if (twice > den || (twice === den && q % 2n === 1n)) q += 1n;
  }
  let s = q.toString();
  if (digits > 0) {
    s = s.padStart(digits + 1, "0");
    s = `${s.slice(0, -digits)}.${s.slice(-digits)}`;
  }
  return (x < 0 || Object.is(x, -0)) && /[1-9]/.test(s) ? `-${s}` : s;
}

Deno.test("toFixedEven: ties to even on the exact binary value, as printf", () => {
  const cases: [number, number, string][] = [
    [1.25, 1, "1.2"],
    [1.35, 1, "1.4"], // 1.35 is slightly above in binary
    [1.75, 1, "1.8"],
    [0.125, 2, "0.12"],
    [2.5, 0, "2"],
    [3.5, 0, "4"],
    [-1.25, 1, "-1.2"],
    [-0.04, 1, "0.0"],
    [0, 1, "0.0"],
    [1e21, 1, "1000000000000000000000.0"],
  ];
  for (const [x, d, want] of cases) assert.equal(toFixedEven(x, d), want, `${x} ${d}`);
  assert.deepEqual([human(1250), human(1750), human(1499), human(999500)], [
    "1.2K",
    "1.8K",
    "1.5K",
    "1M",
  ]);
  assert.deepEqual([shortTokens(1250), shortTokens(3_550_000), shortTokens(918)], [
    "1.2k",
    "3.5M",
    "918",
  ]);
});

Deno.test("toFixedEven equals the exact oracle (ties, token ratios, any double)", () => {
  const digits = fc.integer({ min: 0, max: 6 });
  const ratio = fc.tuple(fc.nat(10_000_000), fc.constantFrom(1, 4, 8, 20, 200, 1000, 1e6));
  fc.assert(
    fc.property(ratio, digits, ([k, div], d) => toFixedEven(k / div, d) === printfF(k / div, d)),
    { numRuns: 100_000 },
  );
  fc.assert(
    fc.property(
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      digits,
      (x, d) => toFixedEven(x, d) === printfF(x, d),
    ),
    { numRuns: 50_000 },
  );
});

// Ruby's `Misc.human_number` (scout-essentials lib/scout/misc/format.rb):
// `value.round` from 10 up (Float#round: half away from zero) and
// `("%.1f" % value).sub(/\.0$/, "")` below. MRI's `%.1f` is BSD__dtoa mode 3:
// correctly rounded on the exact binary value, ties to even only when the
// binary value is exactly halfway. 1050/1000 is the double
// 1.0500000000000000444… (above the tie) → `1.1`; 1150/1000 is
// 1.1499999999999999112… (below) → `1.1`; 1250/1000 = 1.25 exactly → `1.2`.
// (Float#round(1, half: :even) on the shortest decimal form would give `1K`
// for 1050 and `1.2K` for 1150, and `10K` for 10500: that is not what
// human_number calls.)
Deno.test("human: decimal-looking ties follow Ruby's %.1f on the exact double, not decimal half-even", () => {
  const table: [number, string][] = [
    [1050, "1.1K"], // 1.05 is above the tie in binary
    [1150, "1.1K"], // 1.15 is below the tie in binary
    [1250, "1.2K"], // exact binary tie → even
    [1350, "1.4K"], // 1.35 is above
    [1750, "1.8K"], // exact binary tie → even
    [2500, "2.5K"], // no rounding
    [10500, "11K"], // value.round: half away from zero
    [11500, "12K"],
    [1050000, "1.1M"],
    [-1050, "-1.1K"],
    // non-ties
    [999, "999"],
    [1049, "1K"],
    [1051, "1.1K"],
    [1499, "1.5K"],
    [9949, "9.9K"],
    [9950, "9.9K"], // 9.95 is below the tie in binary
    [9951, "10K"],
    [999499, "999K"],
    [999500, "1M"],
  ];
  for (const [n, want] of table) assert.equal(human(n), want, `human(${n})`);
});

Deno.test("log labels name the agent of a society log, nested and one-shot ones too (issue 11.6)", () => {
  const job = "/w/jobs/Planner/ask/Default_x.chat";
  const log = job + ".files/log/";
  // before issue 11 the label was the bare relative path; now the agent comes first
  assert.equal(
    logLabel(log + "society/Critic/default.chat", job),
    "Critic · default",
  );
  assert.equal(
    logLabel(log + "society/Worker/_oneshot-2/society/Helper/c1.chat", job),
    "Helper · c1",
  );
  assert.equal(
    logLabel(log + "round-1/society/Worker/_oneshot-1.chat", job),
    "Worker · _oneshot-1",
  );
  // not society logs: unchanged
  assert.equal(logLabel(log + "agent.chat", job), "agent.chat");
  assert.equal(logLabel(log + "round-1/agent.chat", job), "round-1/agent.chat");
  assert.equal(logLabel("/elsewhere/society.chat", job), "/elsewhere/society.chat");
  assert.equal(logLabel("/x/society/A/b.chat", null), "A · b");
  // the owner's path must be followed by `.files/log/`, not merely be a prefix
  assert.equal(
    logLabel("/w/jobs/Planner/ask/Default_xy.chat.files/log/a.chat", job),
    "/w/jobs/Planner/ask/Default_xy.chat.files/log/a.chat",
  );
  assert.equal(logLabel(job + ".files/logs/a.chat", job), job + ".files/logs/a.chat");
  // a chat outside any job: relative to the root's directory
  assert.equal(logLabel("/w/runs/other.chat", null, "/w"), "runs/other.chat");
  assert.equal(logLabel("/elsewhere/x.chat", null, "/w/runs"), "../../elsewhere/x.chat");
});

Deno.test("labels are shortened in the middle, never cut at the end; -l keeps full paths", () => {
  assert.equal(middleShorten("short label"), "short label");
  const long = "Planner/ask " + "x".repeat(80) + " cefe35d2";
  const s = middleShorten(long);
  assert.equal([...s].length, LABEL_MAX);
  assert.ok(s.startsWith("Planner/ask xx") && s.endsWith("x cefe35d2"), s);
  assert.equal(s.split("…").length, 2);
  assert.equal(middleShorten("a".repeat(61), 60), "a".repeat(29) + "…" + "a".repeat(30));
  // whole characters, not UTF-16 halves
  assert.equal([...middleShorten("😀".repeat(70), 9)].length, 9);
  const node = {
    id: "chat:/p",
    kind: "chat" as const,
    path: "/very/long/" + "p".repeat(90) + ".chat",
    label: "p".repeat(90) + ".chat",
    hidden: null,
    owner: null,
    caller: null,
    job: null,
    tokens: { direct: emptyTokens(), subtree: emptyTokens() },
    receipts: null,
  };
  assert.equal([...shownLabel(node, {})].length, LABEL_MAX);
  assert.equal(shownLabel(node, { long: true }), node.path);
});

Deno.test("middleShorten's length shortcut answers as reading every character does", () => {
  const reference = (label: string, max = LABEL_MAX) => {
    const chars = [...label];
    if (chars.length <= max) return label;
    const tail = Math.ceil((max - 1) / 2);
    const head = max - 1 - tail;
    return chars.slice(0, head).join("") + "…" + chars.slice(chars.length - tail).join("");
  };
  // more UTF-16 units than the limit, but not more characters: unchanged
  assert.equal(middleShorten("😀".repeat(40), 60), "😀".repeat(40));
  fc.assert(
    fc.property(
      fc.string({ unit: fc.constantFrom("a", "·", "😀", "/"), maxLength: 90 }),
      fc.integer({ min: 3, max: 70 }),
      (label, max) => middleShorten(label, max) === reference(label, max),
    ),
    { numRuns: 2000 },
  );
});

Deno.test("top-level agent logs are found without making basenames, as basename/dirname say", () => {
  const byBasenames = (p: string) => basename(p) === "agent.chat" && basename(dirname(p)) === "log";
  for (const p of ["/j/x.files/log/agent.chat", "log/agent.chat", "/a/log//agent.chat"]) {
    assert.equal(isTopLevelAgentLog(p), true, p);
  }
  for (const p of ["/j/x.files/log/r/agent.chat", "/a/catalog/agent.chat", "/a/log/agent.chats"]) {
    assert.equal(isTopLevelAgentLog(p), false, p);
  }
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom("log", "agent.chat", "", "a", "xlog", "agent.chatx"), {
        minLength: 1,
        maxLength: 6,
      }),
      fc.boolean(),
      (parts, absolute) => {
        const p = (absolute ? "/" : "") + parts.join("/");
        return isTopLevelAgentLog(p) === byBasenames(p);
      },
    ),
    { numRuns: 3000 },
  );
});

Deno.test("padRight/padLeft count code points: a pair is one column, a lone surrogate one too", () => {
  assert.equal(padRight("🌍", 3), "🌍  ");
  assert.equal(padLeft("é", 2), " é");
  assert.equal(padRight("\ud800", 3), "\ud800  ");
  assert.equal(padLeft("\udc00x", 3), " \udc00x");
});
