/**
 * The receipt copies of a report's chats, waiting as typed columns until
 * every chat meta is grouped (`EventTable.finish`, the order `eventGrouping`
 * defines). Split from `event_columns.ts`.
 *
 * @module
 */
import { TOKEN_KEYS } from "../chat/meta.ts";
import { fresh } from "./file_evidence.ts";
import { collectIfGrown } from "../util/gc.ts";
import { uuidWords } from "./id_table.ts";
import { grown, K, putTokens, type TokenColumn, tokensAt } from "./typed.ts";
import type { Copy } from "./event_columns.ts";

/**
 * Receipt copies waiting for {@link EventTable.finish}, in arrival order, as
 * columns. An identity already grouped is kept as its event (maps only grow:
 * it is still there at the end); others keep their value — a lower-case UUID
 * (every `inference_id` scout-ai writes) as its 128 bits, any other string
 * as a copy. A 2 GB store has ~240,000 of them.
 */
export function pendingReceipts() {
  let count = 0;
  let seqs = new Int32Array(256);
  let pos = new Int32Array(256);
  let types = new Uint8Array(256);
  let known = new Int32Array(256); // the event, or -1: see uuids and values
  let prids = new Float64Array(256);
  let tokens: TokenColumn = new Int32Array(256 * K);
  let tools = new Int32Array(256); // index in toolNames, -1 for none
  let names = new Int32Array(256 * 3);
  let uuids = new Uint32Array(256 * 4); // the value's words, when it is a UUID
  const values = new Map<number, string>(); // other values
  const toolNames: string[] = [];
  const toolIndex = new Map<string, number>();
  return {
    /** Receipts waiting. */
    get count(): number {
      return count;
    },
    push(seq: number, p: number, c: Copy, tool: string | null, event: number): void {
      const i = count++;
      seqs = grown(seqs, count);
      pos = grown(pos, count);
      types = grown(types, count);
      known = grown(known, count);
      prids = grown(prids, count);
      tools = grown(tools, count);
      tokens = grown<TokenColumn>(tokens, count * K);
      names = grown(names, count * 3);
      uuids = grown(uuids, count * 4);
      names.set(c.names, i * 3);
      seqs[i] = seq;
      pos[i] = p;
      types[i] = c.type;
      known[i] = event;
      if (event < 0 && !uuidWords(c.value, uuids, i * 4)) {
        values.set(i, fresh(c.value)); // not a slice pinning its chat's text
      }
      prids[i] = c.prid;
      tokens = putTokens(tokens, i * K, c.tokens);
      let t = -1;
      if (tool !== null) {
        t = toolIndex.get(tool) ?? -1;
        if (t === -1) toolIndex.set(tool, t = toolNames.push(fresh(tool)) - 1);
      }
      tools[i] = t;
    },
    /**
     * How many waiting receipts have an identity `find` does not know (an
     * upper bound of the events they will add: repeats count each time).
     */
    unknown(find: (type: number, value: string, words: Uint32Array | null, at: number) => number) {
      let n = 0;
      for (let i = 0; i < count; i++) {
        if (known[i]! >= 0) continue;
        const other = values.get(i);
        if (find(types[i]!, other ?? "", other === undefined ? uuids : null, i * 4) < 0) n++;
      }
      return n;
    },
    drain(
      visit: (seq: number, pos: number, c: Copy, tool: string | null, event: number) => void,
    ): void {
      // one copy record, refilled for each receipt (visit keeps none of it)
      const c: Copy = {
        type: 0,
        value: "",
        words: null,
        wordsAt: 0,
        tokens: tokensAt(tokens, 0),
        prid: 0,
        names: [-1, -1, -1],
      };
      for (let i = 0; i < count; i++) {
        c.type = types[i]!;
        const other = known[i]! >= 0 ? "" : values.get(i);
        c.value = other ?? "";
        c.words = other === undefined ? uuids : null;
        c.wordsAt = i * 4;
        for (let k = 0; k < K; k++) c.tokens[TOKEN_KEYS[k]!] = tokens[i * K + k]!;
        c.prid = prids[i]!;
        for (let k = 0; k < 3; k++) c.names[k] = names[i * 3 + k]!;
        visit(seqs[i]!, pos[i]!, c, tools[i] === -1 ? null : toolNames[tools[i]!]!, known[i]!);
        if ((i & 16383) === 16383) collectIfGrown(); // the columns the visits grew
      }
      // done: let the columns go
      count = 0;
      values.clear();
      seqs =
        pos =
        known =
        tools =
          new Int32Array(0);
      types = new Uint8Array(0);
      prids = new Float64Array(0);
      tokens = new Int32Array(0);
      uuids = new Uint32Array(0);
    },
  };
}
