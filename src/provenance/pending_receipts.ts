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

/** The waiting receipts' columns (each grown as receipts come, dropped once drained). */
interface Columns {
  count: number;
  seqs: Int32Array;
  pos: Int32Array;
  types: Uint8Array;
  /** The event, or -1: see uuids and values. */
  known: Int32Array;
  prids: Float64Array;
  tokens: TokenColumn;
  /** Index in toolNames, -1 for none. */
  tools: Int32Array;
  names: Int32Array;
  /** The value's words, when it is a UUID. */
  uuids: Uint32Array;
  /** Other values. */
  readonly values: Map<number, string>;
  readonly toolNames: string[];
  readonly toolIndex: Map<string, number>;
}

/**
 * Receipt copies waiting for {@link EventTable.finish}, in arrival order, as
 * columns. An identity already grouped is kept as its event (maps only grow:
 * it is still there at the end); others keep their value — a lower-case UUID
 * (every `inference_id` scout-ai writes) as its 128 bits, any other string
 * as a copy. A 2 GB store has ~240,000 of them.
 */
export function pendingReceipts() {
  const cols: Columns = {
    count: 0,
    seqs: new Int32Array(256),
    pos: new Int32Array(256),
    types: new Uint8Array(256),
    known: new Int32Array(256),
    prids: new Float64Array(256),
    tokens: new Int32Array(256 * K),
    tools: new Int32Array(256),
    names: new Int32Array(256 * 3),
    uuids: new Uint32Array(256 * 4),
    values: new Map(),
    toolNames: [],
    toolIndex: new Map(),
  };
  return {
    /** Receipts waiting. */
    get count(): number {
      return cols.count;
    },
    push: (seq: number, p: number, c: Copy, tool: string | null, event: number): void =>
      pushReceipt(cols, seq, p, c, tool, event),
    /**
     * How many waiting receipts have an identity `find` does not know (an
     * upper bound of the events they will add: repeats count each time).
     */
    unknown: (
      find: (type: number, value: string, words: Uint32Array | null, at: number) => number,
    ): number => unknownCount(cols, find),
    /** Visits every waiting receipt in arrival order, then lets the columns go. */
    drain: (
      visit: (seq: number, pos: number, c: Copy, tool: string | null, event: number) => void,
    ): void => drainReceipts(cols, visit),
  };
}

function pushReceipt(
  cols: Columns,
  seq: number,
  p: number,
  c: Copy,
  tool: string | null,
  event: number,
): void {
  const i = cols.count++;
  const n = cols.count;
  cols.seqs = grown(cols.seqs, n);
  cols.pos = grown(cols.pos, n);
  cols.types = grown(cols.types, n);
  cols.known = grown(cols.known, n);
  cols.prids = grown(cols.prids, n);
  cols.tools = grown(cols.tools, n);
  cols.tokens = grown<TokenColumn>(cols.tokens, n * K);
  cols.names = grown(cols.names, n * 3);
  cols.uuids = grown(cols.uuids, n * 4);
  cols.names.set(c.names, i * 3);
  cols.seqs[i] = seq;
  cols.pos[i] = p;
  cols.types[i] = c.type;
  cols.known[i] = event;
  if (event < 0 && !uuidWords(c.value, cols.uuids, i * 4)) {
    cols.values.set(i, fresh(c.value)); // not a slice pinning its chat's text
  }
  cols.prids[i] = c.prid;
  cols.tokens = putTokens(cols.tokens, i * K, c.tokens);
  let t = -1;
  if (tool !== null) {
    t = cols.toolIndex.get(tool) ?? -1;
    if (t === -1) cols.toolIndex.set(tool, t = cols.toolNames.push(fresh(tool)) - 1);
  }
  cols.tools[i] = t;
}

function unknownCount(
  cols: Columns,
  find: (type: number, value: string, words: Uint32Array | null, at: number) => number,
): number {
  let n = 0;
  for (let i = 0; i < cols.count; i++) {
    if (cols.known[i]! >= 0) continue;
    const other = cols.values.get(i);
    if (find(cols.types[i]!, other ?? "", other === undefined ? cols.uuids : null, i * 4) < 0) n++;
  }
  return n;
}

function drainReceipts(
  cols: Columns,
  visit: (seq: number, pos: number, c: Copy, tool: string | null, event: number) => void,
): void {
  const { seqs, pos, types, known, prids, tokens, tools, names, uuids, values, toolNames } = cols;
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
  for (let i = 0; i < cols.count; i++) {
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
  cols.count = 0;
  values.clear();
  cols.seqs =
    cols.pos =
    cols.known =
    cols.tools =
      new Int32Array(0);
  cols.types = new Uint8Array(0);
  cols.prids = new Float64Array(0);
  cols.tokens = new Int32Array(0);
  cols.uuids = new Uint32Array(0);
}
