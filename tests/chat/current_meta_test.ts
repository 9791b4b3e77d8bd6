import assert from "node:assert/strict";
import fc from "fast-check";
import { currentMeta, parseMeta } from "../../src/chat/mod.ts";
import type { Message, MetaRecord } from "../../src/chat/mod.ts";

const CUMULATIVE = ["pt_c", "ct_c", "tt_c", "cct_c", "cwt_c", "rt_c"];

/** inference.md §4.3 step by step: parse every meta, take the last, the `_c` keys of the last having any. */
function reference(chat: readonly Message[]): MetaRecord {
  const all = chat.filter((m) => m.role === "meta").map((m) =>
    parseMeta(typeof m.content === "string" ? m.content : "")
  );
  const last = all.at(-1);
  if (!last) return {};
  const out: MetaRecord = { ...last };
  const withTotals = all.findLast((m) => CUMULATIVE.some((k) => k in m));
  if (withTotals) {
    for (const k of CUMULATIVE) {
      if (k in withTotals) out[k] = withTotals[k]!;
      else delete out[k];
    }
  }
  return out;
}

Deno.test("currentMeta: equal to parsing every meta of the chat (property)", () => {
  const key = fc.constantFrom("pt", "ct", "job", "inference_id", ...CUMULATIVE);
  const metaLine = fc.array(fc.tuple(key, fc.nat(99)), { maxLength: 6 })
    .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join(" "));
  const message = fc.oneof(
    metaLine.map((content): Message => ({ role: "meta", content })),
    fc.constantFrom<Message>({ role: "user", content: "q" }, { role: "assistant", content: "a" }),
  );
  fc.assert(
    fc.property(fc.array(message, { maxLength: 12 }), (chat) => {
      assert.deepEqual(currentMeta(chat), reference(chat));
    }),
    { numRuns: 2000 },
  );
});

Deno.test("currentMeta: reads back only as far as the last meta with totals (a long chat is not parsed whole)", () => {
  let reads = 0;
  const counted = (content: string): Message => ({
    role: "meta",
    get content() {
      reads++;
      return content;
    },
  });
  const chat: Message[] = [];
  for (let n = 1; n <= 500; n++) {
    chat.push({ role: "user", content: `q${n}` }, counted(`pt=${n} pt_c=${n * (n + 1) / 2}`));
  }
  chat.push(counted("job=Wf/task/x"));
  reads = 0;
  assert.deepEqual(currentMeta(chat), { job: "Wf/task/x", pt_c: 125250 });
  assert.ok(reads <= 4, `two meta messages read (${reads} reads of meta contents)`);
});
