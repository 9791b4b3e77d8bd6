/**
 * The digests of a key's parts stored with a round entry, and what an offline
 * miss finds with them (`src/llm/cache_miss_hint.ts`, R103-1): the entry
 * recorded for the same request apart from one part other than its messages,
 * the tools first; entries without parts (written before them) are not
 * compared, and still read; an entry with a field the schema does not name is
 * read too (how an older scout-ai reads one with `parts`).
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CacheKeyInput, cacheKeyParts, cacheReadEntry } from "../../src/llm/cache.ts";
import { entryProblem, ROUND_ENTRY } from "../../src/llm/cache_entry.ts";
import { missHint, nearSearch } from "../../src/llm/cache_miss_hint.ts";
import { tempDir } from "../support/cli.ts";

const INPUT: CacheKeyInput = {
  endpoint: "loop",
  backend: "openai",
  model: "m",
  params: { params: { temperature: 0 } },
  tools: [{ type: "function", function: { name: "ask", description: "Ask a specialist" } }],
  messages: [{ role: "user", content: "bake" }],
  currentMeta: null,
};

/** A round entry recorded for `input`, written as `<key>.json` in `dir`. */
function entry(dir: string, key: string, input: CacheKeyInput, extra: object = {}): string {
  const file = join(dir, `${key.repeat(64)}.json`);
  const { endpoint, backend, model } = input;
  const round = {
    v: 2,
    created: "2026-12-06T00:00:00.000Z",
    endpoint,
    backend,
    model,
    round: 1,
    items: [{ type: "text", text: "Baked." }],
    meta: null,
    stamps: [],
    parts: cacheKeyParts(input),
    ...extra,
  };
  writeFileSync(file, JSON.stringify(round) + "\n");
  return file;
}

const otherTools = { ...INPUT, tools: [{ type: "function", function: { name: "ask" } }] };
const otherParams = { ...INPUT, params: { params: { temperature: 1 } } };

Deno.test("parts: a request that differs in one member differs in that part only", () => {
  const base = cacheKeyParts(INPUT);
  assert.deepEqual(Object.keys(base).sort(), ["currentMeta", "messages", "params", "tools"]);
  for (const v of Object.values(base)) assert.match(v, /^[0-9a-f]{16}$/);
  assert.deepEqual(cacheKeyParts(otherTools), { ...base, tools: cacheKeyParts(otherTools).tools });
  assert.notEqual(cacheKeyParts(otherTools).tools, base.tools);
  const meta = { ...INPUT, currentMeta: { role: "meta", content: "pt=1" } };
  assert.deepEqual(cacheKeyParts(meta), { ...base, currentMeta: cacheKeyParts(meta).currentMeta });
});

Deno.test("a miss finds the entry that differs in one part: the tools first, then params, meta, origin", async () => {
  await using d = await tempDir();
  const req = { endpoint: "loop", backend: "openai", model: "m", parts: cacheKeyParts(INPUT) };
  assert.equal(nearSearch(join(d.path, "none"), req).near, null);
  // only the messages differ: another question, not a hint
  entry(d.path, "1", { ...INPUT, messages: [{ role: "user", content: "fry" }] });
  // two parts differ
  entry(d.path, "2", { ...otherTools, params: otherParams.params });
  assert.equal(missHint(d.path, req), null);
  const origin = entry(d.path, "3", { ...INPUT, endpoint: "other", model: "m2" });
  assert.equal(
    missHint(d.path, req),
    `the cache holds an answer to the same messages recorded for endpoint "other" (model "m2") (${origin})`,
  );
  const meta = entry(d.path, "4", { ...INPUT, currentMeta: { role: "meta", content: "pt=1" } });
  assert.deepEqual(nearSearch(d.path, req).near?.file, meta);
  const params = entry(d.path, "5", otherParams);
  assert.equal(
    missHint(d.path, req),
    `the cache holds an answer to the same messages recorded with other parameters (${params}): ` +
      "an option, a prompt strategy or the model's settings changed since it was recorded",
  );
  const tools = entry(d.path, "6", otherTools);
  assert.equal(
    missHint(d.path, req),
    `the cache holds an answer to the same messages recorded with other tool definitions (${tools}): ` +
      "a tool's text changed since it was recorded",
  );
});

Deno.test("entries without parts are not compared, and still read; an unknown field is read too", async () => {
  await using d = await tempDir();
  const req = { endpoint: "loop", backend: "openai", model: "m", parts: cacheKeyParts(INPUT) };
  const file = entry(d.path, "7", otherTools, { parts: undefined });
  assert.equal(nearSearch(d.path, req).near, null);
  const warnings: string[] = [];
  const read = await cacheReadEntry(d.path, "7".repeat(64), (m) => warnings.push(m));
  assert.equal(read?.round, 1);
  assert.deepEqual(warnings, []);
  const later = JSON.parse(Deno.readTextFileSync(file));
  // what an entry of a later format adds: ignored, as this one's `parts` by an older scout-ai
  assert.equal(entryProblem(ROUND_ENTRY, { ...later, parts: cacheKeyParts(INPUT) }), null);
  assert.equal(entryProblem(ROUND_ENTRY, { ...later, future: { x: 1 } }), null);
  assert.match(String(entryProblem(ROUND_ENTRY, { ...later, parts: { tools: 1 } })), /^parts\./);
});
