/**
 * What the inference cache accepts as an entry (`src/llm/cache_entry.ts`,
 * R73-5): every entry the cache writes — recorded by real runs over each
 * backend and by the example society, and any round record (property) —
 * reads back as written; an entry of another shape (items that are not reply
 * items, a call without its name, arguments or id, a meta whose content is
 * not a string, stamps that are not `[start, end]` pairs…) is a miss with one
 * warning naming the file.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import fc from "fast-check";
import { runExample } from "../../fixtures/agents/run.ts";
import type { Message } from "../../src/chat/types.ts";
import { serializeMeta } from "../../src/chat/meta.ts";
import { newSession, nextMeta } from "../../src/llm/meta_record.ts";
import { ask } from "../../src/llm/ask.ts";
import {
  cacheDir,
  type CachedRound,
  cacheRead,
  cacheReadEntry,
  withCacheLock,
} from "../../src/llm/cache.ts";
import type { ReplyItem } from "../../src/llm/types.ts";
import { tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { BACKENDS, echoTool, opts } from "./ask_support.ts";

/** The keys of the entries in `dir`. */
function keysIn(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.endsWith(".json"))
    .map((n) => n.slice(0, -".json".length)).sort();
}

/** Reads every entry of `dir` through `cacheReadEntry`: each must come back as written, unwarned. */
async function assertAllRead(dir: string): Promise<number> {
  const warnings: string[] = [];
  const keys = keysIn(dir);
  for (const key of keys) {
    const written = JSON.parse(await Deno.readTextFile(join(dir, `${key}.json`)));
    const read = await cacheReadEntry(dir, key, (m) => warnings.push(m));
    assert.deepEqual(read, written, key);
  }
  assert.deepEqual(warnings, []);
  return keys.length;
}

const question: Message[] = [{ role: "user", content: "Look up eggs, then answer." }];

for (const backend of BACKENDS) {
  Deno.test(`${backend}: every round entry a recorded tool loop wrote is accepted as written`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    srv.script(
      { toolCalls: [{ name: "lookup", arguments: { q: "eggs" }, id: "call_1" }] },
      { text: "Four eggs.", reasoning: "counted" },
    );
    await ask(question, opts(srv, backend, home.path, { persist: true, tools: echoTool() }));
    // meta records off: the entry's meta is null
    srv.script({ text: "quiet" });
    await ask([{ role: "user", content: "Quietly?" }], {
      ...opts(srv, backend, home.path, { persist: true }),
      log_response: "false",
    });
    assert.equal(await assertAllRead(cacheDir(home.path)), 3);
  });
}

Deno.test("responses: entries with a hosted call and a message item are accepted as written", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({
    text: "Done remotely.",
    extraItems: [
      { type: "mcp_call", id: "mcp_1", name: "remote_search", arguments: '{"q":"x"}', output: "3" },
      { type: "image_generation_call", id: "ig_1", result: "aGVsbG8=" },
    ],
  });
  await ask(question, opts(srv, "responses", home.path, { persist: true }));
  const dir = cacheDir(home.path);
  assert.equal(await assertAllRead(dir), 1);
  const entry = JSON.parse(await Deno.readTextFile(join(dir, `${keysIn(dir)[0]}.json`)));
  assert.deepEqual(entry.items.map((i: ReplyItem) => i.type), ["text", "hosted_call", "message"]);
});

Deno.test("every entry of the recorded example society (what replay-check replays) is accepted as written", async () => {
  await using out = await tempDir();
  const run = await runExample({ out: out.path, plot: false });
  assert.equal(await assertAllRead(cacheDir(run.home)), run.requests);
});

/** Any JSON, as a parsed entry holds it. */
const json = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)));
/** The thinking blocks a text or call may carry (R83-10). */
const thinking = fc.array(
  fc.oneof(
    fc.record({
      type: fc.constant("thinking" as const),
      thinking: fc.string(),
      signature: fc.string(),
    }),
    fc.record({ type: fc.constant("redacted_thinking" as const), data: fc.string() }),
  ),
  { maxLength: 3 },
);
const replyItem: fc.Arbitrary<ReplyItem> = fc.oneof(
  fc.record({ type: fc.constant("text" as const), text: fc.string(), thinking }, {
    requiredKeys: ["type", "text"],
  }),
  fc.record({
    type: fc.constant("call" as const),
    name: fc.string(),
    arguments: json,
    id: fc.string(),
    thinking,
  }, { requiredKeys: ["type", "name", "arguments", "id"] }),
  fc.record({
    type: fc.constant("hosted_call" as const),
    name: fc.string(),
    arguments: json,
    id: fc.string(),
    output: fc.string(),
  }),
  fc.record({
    type: fc.constant("message" as const),
    message: fc.record({ role: fc.string(), content: json }),
  }),
);
/** A meta record as `liveMeta` writes it: any usage a provider reports (a negative or huge count too: R144-2), any chat totals before. */
const count = fc.oneof(
  fc.nat(),
  fc.integer(),
  fc.constantFrom(-1, 1e20, 1e21, 9007199254740993),
  fc.double({ min: 0, max: 1e9, noNaN: true }),
  fc.nat().map(String),
);
const metaContent: fc.Arbitrary<string> = fc.record({
  usage: fc.record({ prompt_tokens: count, completion_tokens: count, total_tokens: count }, {
    requiredKeys: [],
  }),
  previous: fc.record({
    pt_c: fc.oneof(fc.integer(), fc.constantFrom("99999999999999999999", "1e+21")),
    ct_c: fc.integer(),
    tt_c: fc.integer(),
  }, {
    requiredKeys: [],
  }),
  reasoning: fc.string(),
}).map(({ usage, previous, reasoning }) =>
  serializeMeta(nextMeta({
    usage,
    previous,
    session: newSession(),
    inferenceId: "i1",
    reasoning,
    timestamp: new Date(0),
  }))
);
const roundEntry: fc.Arbitrary<CachedRound> = fc.record({
  v: fc.constant(2),
  created: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  endpoint: fc.string(),
  backend: fc.string(),
  model: fc.string(),
  round: fc.integer({ min: 1, max: 100 }),
  items: fc.array(replyItem, { maxLength: 5 }),
  id: fc.string({ minLength: 1 }),
  meta: fc.option(fc.record({ role: fc.constant("meta"), content: metaContent })),
  stamps: fc.array(fc.option(fc.tuple(fc.string(), fc.string())), { maxLength: 4 }),
}, {
  requiredKeys: [
    "v",
    "created",
    "endpoint",
    "backend",
    "model",
    "round",
    "items",
    "meta",
    "stamps",
  ],
});

Deno.test("property: any round entry the store writes reads back as written, unwarned", async () => {
  await using home = await tempDir();
  const dir = cacheDir(home.path);
  let n = 0;
  await fc.assert(
    fc.asyncProperty(roundEntry, async (entry) => {
      const key = `k${n++}`;
      await withCacheLock(dir, key, (store) => store(entry));
      const warnings: string[] = [];
      const written = JSON.parse(JSON.stringify(entry)); // plain objects, as the file holds them
      assert.deepEqual(await cacheReadEntry(dir, key, (m) => warnings.push(m)), written);
      assert.deepEqual(warnings, []);
    }),
    { numRuns: 200 },
  );
});

/** A real round entry (a tool call, its output's stamps, a meta), as the cache wrote it. */
async function recordedEntry(): Promise<Record<string, unknown>> {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ toolCalls: [{ name: "lookup", arguments: { q: "eggs" }, id: "call_1" }] }, {
    text: "Four eggs.",
  });
  await ask(question, opts(srv, "openai", home.path, { persist: true, tools: echoTool() }));
  const dir = cacheDir(home.path);
  for (const key of keysIn(dir)) {
    const entry = JSON.parse(await Deno.readTextFile(join(dir, `${key}.json`)));
    if (entry.round === 1) return entry;
  }
  throw new Error("no first-round entry");
}

/** Broken variants of a recorded entry, each with the path its warning must name. */
const BROKEN: [string, string, (e: Record<string, unknown>) => unknown][] = [
  ["items that are not reply items", "items.0", (e) => ({ ...e, items: [1, null, "x"] })],
  ["an item of an unknown type", "items.0.type", (e) => ({ ...e, items: [{ type: "tool_call" }] })],
  [
    "a call without a name",
    "items.0.name",
    (e) => ({ ...e, items: [{ ...call(e), name: undefined }] }),
  ],
  [
    "a call without arguments",
    "items.0.arguments",
    (e) => ({ ...e, items: [{ ...call(e), arguments: undefined }] }),
  ],
  ["a call without an id", "items.0.id", (e) => ({ ...e, items: [{ ...call(e), id: 7 }] })],
  [
    "a text that is not a string",
    "items.0.text",
    (e) => ({ ...e, items: [{ type: "text", text: 5 }] }),
  ],
  [
    "a call's thinking block without its signature",
    "items.0.thinking.0.signature",
    (e) => ({ ...e, items: [{ ...call(e), thinking: [{ type: "thinking", thinking: "t" }] }] }),
  ],
  [
    "a text's thinking that is not a list",
    "items.0.thinking",
    (e) => ({ ...e, items: [{ type: "text", text: "x", thinking: "t" }] }),
  ],
  [
    "a hosted call without output",
    "items.0.output",
    (e) => ({ ...e, items: [{ ...call(e), type: "hosted_call" }] }),
  ],
  [
    "a message item without a role",
    "items.0.message.role",
    (e) => ({ ...e, items: [{ type: "message", message: { content: "x" } }] }),
  ],
  [
    "a meta content that is not a string",
    "meta.content",
    (e) => ({ ...e, meta: { role: "meta", content: 5 } }),
  ],
  [
    "a meta that is not a meta message",
    "meta.role",
    (e) => ({ ...e, meta: { role: "assistant", content: "x" } }),
  ],
  ["a meta that is not an object", "meta", (e) => ({ ...e, meta: "pt=1" })],
  // R142-4: token counts no writer writes, which a hit replayed into the chat
  ...["pt=abc ct=Infinity tt=NaN", "pt=1e308", "tt=1.5", "pt=9007199254740993", "pt_c=0x1F"].map((
    content,
  ): [string, string, (e: Record<string, unknown>) => unknown] => [
    `a meta with ${content}`,
    "meta.content",
    (e) => ({ ...e, meta: { role: "meta", content: `${content} inference_id=x` } }),
  ]),
  [
    "a retried meta with a bad count",
    "retried.0.content",
    (e) => ({ ...e, retried: [{ role: "meta", content: "pt=abc incomplete=true" }] }),
  ],
  ["a stamp that is a number", "stamps.0", (e) => ({ ...e, stamps: [5] })],
  [
    "a stamp that is not a pair",
    "stamps.0",
    (e) => ({ ...e, stamps: [["2026-01-01T00:00:00.000Z"]] }),
  ],
  ["a stamp of three", "stamps.0", (e) => ({ ...e, stamps: [["a", "b", "c"]] })],
  ["a stamp of numbers", "stamps.0.0", (e) => ({ ...e, stamps: [[1, 2]] })],
  ["stamps that are not a list", "stamps", (e) => ({ ...e, stamps: {} })],
  ["a response id that is not a string", "id", (e) => ({ ...e, id: 5 })],
  ["another format version", "v", (e) => ({ ...e, v: 3 })],
  ["no round number", "round", (e) => ({ ...e, round: undefined })],
  ["a list", "entry", () => []],
  ["null", "entry", () => null],
];

function call(e: Record<string, unknown>): Record<string, unknown> {
  return (e.items as Record<string, unknown>[]).find((i) => i.type === "call")!;
}

Deno.test("a round entry of another shape is a miss with one warning naming the file and the problem", async () => {
  const entry = await recordedEntry();
  assert.deepEqual((entry.stamps as unknown[]).length, 1);
  assert.equal((entry.meta as Message).role, "meta");
  await using home = await tempDir();
  const dir = cacheDir(home.path);
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(join(dir, "good.json"), JSON.stringify(entry));
  assert.deepEqual(await cacheReadEntry(dir, "good"), entry);
  for (const [what, where, broken] of BROKEN) {
    const key = what.replace(/[^\w-]/g, "_");
    const file = join(dir, `${key}.json`);
    await Deno.writeTextFile(file, JSON.stringify(broken(entry)));
    const warnings: string[] = [];
    const warn = (m: string) => warnings.push(m);
    assert.equal(await cacheReadEntry(dir, key, warn), null, what);
    assert.equal(warnings.length, 1, `${what}: ${warnings.join("\n")}`);
    assert.ok(
      warnings[0]!.startsWith(`Ignoring corrupt cache entry "${file}": ${where}: `),
      warnings[0],
    );
  }
});

Deno.test("a whole-ask entry (format 1) of another shape is a miss with a warning; a good one reads as written", async () => {
  await using home = await tempDir();
  const dir = cacheDir(home.path);
  await Deno.mkdir(dir, { recursive: true });
  // as the format-1 code wrote it (see ask_cache_rounds_test.ts)
  const good = {
    v: 1,
    created: "2026-12-03T06:59:17.134Z",
    endpoint: "",
    backend: "openai",
    model: "legacy-model",
    messages: [
      { role: "meta", content: "pt=10 ct=5 tt=15 inference_id=8e083df0" },
      { role: "assistant", content: "Old answer." },
    ],
  };
  const cases: [string, string, unknown][] = [
    ["good", "", good],
    ["null_message", "messages.0", { ...good, messages: [null] }],
    ["no_role", "messages.0.role", { ...good, messages: [{ content: "x" }] }],
    ["not_a_list", "messages", { ...good, messages: "x" }],
    ["round_entry", "v", { ...good, v: 2 }],
  ];
  for (const [key, where, entry] of cases) {
    await Deno.writeTextFile(join(dir, `${key}.json`), JSON.stringify(entry));
    const warnings: string[] = [];
    const read = await cacheRead(dir, key, (m) => warnings.push(m));
    if (key === "good") {
      assert.deepEqual(read, good);
      assert.deepEqual(warnings, []);
      continue;
    }
    assert.equal(read, null, key);
    assert.equal(warnings.length, 1, key);
    assert.match(warnings[0]!, new RegExp(`${key}\\.json": ${where.replaceAll(".", "\\.")}: `));
  }
});

Deno.test("an entry whose bytes are not UTF-8 is a miss with a warning naming the file (R142-4)", async () => {
  const entry = await recordedEntry();
  await using home = await tempDir();
  const dir = cacheDir(home.path);
  await Deno.mkdir(dir, { recursive: true });
  const text = new TextEncoder().encode(
    JSON.stringify({ ...entry, items: [{ type: "text", text: "@@ utfq" }] }),
  );
  const at = text.indexOf(64); // the first "@"
  text.set([0xff, 0xfe], at); // as `perl -pi -e 's/…/\xff\xfe…/'` leaves it
  const file = join(dir, "bad.json");
  await Deno.writeFile(file, text);
  const warnings: string[] = [];
  assert.equal(await cacheReadEntry(dir, "bad", (m) => warnings.push(m)), null);
  assert.deepEqual(warnings, [`Ignoring corrupt cache entry "${file}": not UTF-8 text`]);
  // the same entry in UTF-8 is a hit
  await Deno.writeTextFile(join(dir, "good.json"), JSON.stringify(entry));
  assert.deepEqual(await cacheReadEntry(dir, "good"), entry);
});
