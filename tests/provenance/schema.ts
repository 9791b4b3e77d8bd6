/**
 * The `scout-ai/provenance` v1 JSON document as a zod schema
 * (`docs/provenance-json.md`). Strict objects: an undocumented field fails
 * validation, so the document and its description cannot drift apart.
 */
import { z } from "zod";

const int = z.number().int();
const relation = z.enum(["job", "dependency", "log", "result", "agent_job", "attempt"]);
const kind = z.enum(["chat", "job"]);

/** All six token keys. */
export const Tokens = z.strictObject({ pt: int, ct: int, tt: int, cct: int, cwt: int, rt: int });

/** `[path, index]` or `[path, index, "agent_meta", i]`. */
const messageAddress = z.tuple([z.string(), int]);
const receiptAddress = z.tuple([z.string(), int, z.literal("agent_meta"), int]);

const meta = z.record(z.string(), z.union([z.string(), z.number()]));

/** Dollars: never negative, at most 12 significant digits (no float noise). */
const dollars = z.number().nonnegative().refine((x) => Number(x.toPrecision(12)) === x, {
  message: "more than 12 significant digits",
});

/** A cost (with a price file): the priced inferences' dollars, unpriced and priced counts. */
export const Cost = z.strictObject({ dollars, unpriced: int, priced: int });

const Node = z.strictObject({
  id: z.string().regex(/^(chat|job):\//),
  kind,
  path: z.string().startsWith("/"),
  label: z.string().nullable(),
  hidden: z.enum(["result_chat", "top_level_agent_log"]).nullable(),
  owner: z.string().regex(/^job:\//).nullable(),
  caller: z.string().regex(/^chat:\//).nullable(),
  job: z.strictObject({
    workflow: z.string().nullable(),
    task: z.string().nullable(),
    type: z.string().nullable(),
    status: z.string().nullable(),
    shortId: z.string(),
    attempt: int.positive().optional(),
  }).nullable(),
  tokens: z.strictObject({ direct: Tokens, subtree: Tokens }),
  receipts: z.strictObject({ events: int, tt: int, tools: z.array(z.string()) }).nullable(),
  cost: z.strictObject({ direct: Cost, subtree: Cost }).optional(),
});

const Edge = z.strictObject({
  from: z.string(),
  to: z.string(),
  relation,
  firstVisit: z.boolean(),
  detail: z.strictObject({
    callId: z.string().nullable(),
    toolName: z.string().nullable(),
    outputAddress: messageAddress,
    evidenceAddress: receiptAddress,
    agentMetaIndex: int,
    reference: z.string(),
  }).nullable(),
});

const Evidence = z.discriminatedUnion("origin", [
  z.strictObject({
    origin: z.literal("chat_meta"),
    source: z.string(),
    meta,
    callId: z.null(),
    toolName: z.null(),
    metaAddress: messageAddress,
  }),
  z.strictObject({
    origin: z.literal("agent_meta"),
    source: z.string(),
    meta,
    callId: z.string().nullable(),
    toolName: z.string().nullable(),
    evidenceAddress: receiptAddress,
    outputAddress: messageAddress,
    agentMetaIndex: int,
  }),
]);

const Event = z.strictObject({
  inferenceId: z.string().nullable(),
  identity: z.union([
    z.tuple([z.enum(["inference_id", "provider_response_id", "lineage"]), z.string()]),
    z.tuple([z.literal("receipt"), receiptAddress]),
  ]),
  deduplication: z.enum([
    "inference_id",
    "provider_response_id",
    "legacy_lineage",
    "receipt_unresolved",
  ]),
  status: z.enum([
    "counted_once",
    "receipt_only",
    "legacy_unresolved",
    "incomplete_evidence",
    "conflict",
  ]),
  meta,
  tokens: Tokens,
  evidence: z.array(Evidence).min(1),
  conflict: z.boolean(),
  conflictFields: z.array(z.string()),
  incompleteEvidence: z.boolean(),
  /** With a price file (added within version 1, R134-1): dollars, null when unpriced. */
  cost: dollars.nullable().optional(),
});

const Warning = z.strictObject({
  code: z.string(),
  message: z.string(),
  kind: kind.nullable(),
  node: z.string().nullable(),
  relation: relation.nullable(),
  reference: z.unknown(),
  reason: z.string().optional(),
});

const dimension = z.enum(["agent", "model", "endpoint", "job"]);

/** `rollups` (with `--by`, docs/provenance-json.md): an added, optional field. */
const Rollup = z.strictObject({
  by: z.array(dimension).min(1),
  groups: z.array(z.strictObject({
    key: z.record(z.string(), z.string().nullable()),
    inferences: int,
    tokens: Tokens,
    cost: dollars.nullable().optional(),
    priced: Cost.optional(),
  })),
  unpriced: z.array(z.string()),
});

/** The whole document. */
export const ProvenanceDocument = z.strictObject({
  schema: z.literal("scout-ai/provenance"),
  version: z.literal(1),
  root: z.string().regex(/^(chat|job):\//),
  /** Several roots walked together (added within version 1, R134-1): every root, `root` first. */
  roots: z.array(z.string().regex(/^(chat|job):\//)).min(2).optional(),
  follow: z.array(relation),
  complete: z.boolean(),
  nodes: z.array(Node).min(1),
  edges: z.array(Edge),
  events: z.array(Event),
  totals: z.strictObject({
    deduplicated_total: Tokens,
    chat_evidence: Tokens,
    receipt_evidence: Tokens,
    receipt_only: Tokens,
    authoritative: z.boolean(),
    conflictEvents: int,
    incompleteEvidenceEvents: int,
    cost: Cost.optional(),
  }),
  warnings: z.array(Warning),
  rollups: z.array(Rollup).optional(),
});
