/**
 * An offline miss's hint reads a bounded part of the cache (R120-2): before,
 * it read and parsed every entry of the directory — 3.4 s for a miss in a
 * cache of 100,000 entries (100,120 opens), 0.08 s for a hit. Now the entries
 * of the same messages come from the index a stored round appends to
 * (`src/llm/cache_index.ts`), at most `INDEX_CANDIDATES` of them; a cache the
 * index may not cover whole (older than it) is scanned for at most
 * `SCAN_LIMIT` entries, and the hint says how many of how many; a big entry
 * is read from its ends. The store here is one real recorded round copied
 * under other keys (other conversations): 3 × `SCAN_LIMIT` entries, enough
 * to pass the bound (the 100,000 of the report: bench/cache_miss_hint_bench.ts).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { entryEnds, entryFields } from "../../src/llm/cache_entry_ends.ts";
import { INDEX_DIR, indexedKeys, indexEntry } from "../../src/llm/cache_index.ts";
import {
  HEAD_BYTES,
  INDEX_CANDIDATES,
  type MissedRequest,
  missHint,
  nearSearch,
  SCAN_LIMIT,
  TAIL_BYTES,
} from "../../src/llm/cache_miss_hint.ts";
import { runScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

const COPIES = 3 * SCAN_LIMIT;

/** Records one round through `llm ask` (a real entry, in a cache the CLI made). */
async function record(dir: string) {
  const srv = await startProviderServer({ fallback: () => ({ text: "Baked." }) });
  const env = { SCOUT_HOME: join(dir, "home"), OPENAI_API_KEY: "sk-x" };
  const ask = (...args: string[]) =>
    runScout(["llm", "ask", "-b", "openai", "-O", `url=${srv.url}`, "-m", "m", ...args], {
      env,
      cwd: dir,
    });
  try {
    const r = await ask("bake");
    assert.equal(r.code, 0, r.stderr);
  } catch (e) {
    await srv.close();
    throw e;
  }
  const cache = join(dir, "home", "var", "cache", "ask");
  const [name] = readdirSync(cache).filter((n) => n.endsWith(".json"));
  const file = join(cache, name!);
  const entry = JSON.parse(readFileSync(file, "utf8"));
  const origin = { endpoint: "", backend: "openai", model: "m" };
  return { cache, file, entry, origin, ask, close: () => srv.close() };
}

/** A 16- or 64-hex name made of `n` (never the recorded entry's). */
const hex = (n: number, width: number) => `e${n.toString(16).padStart(width - 1, "0")}`;

/** Copies of the entry under other keys, of other messages, indexed as a store does. */
function copy(cache: string, entry: { parts: { messages: string } }, from: number, n: number) {
  const c = structuredClone(entry);
  for (let i = from; i < from + n; i++) {
    c.parts.messages = hex(i, 16);
    writeFileSync(join(cache, `${hex(i, 64)}.json`), JSON.stringify(c) + "\n");
    indexEntry(cache, hex(i, 64), c.parts.messages);
  }
}

Deno.test("a miss in a cache its index covers reads only entries of the same messages, at most INDEX_CANDIDATES", async () => {
  await using d = await tempDir();
  const rec = await record(d.path);
  await rec.close();
  // the store indexed the round; the CLI made the cache directory, so the index is whole
  assert.deepEqual(indexedKeys(rec.cache, rec.entry.parts.messages, 10), {
    keys: [rec.file.slice(-69, -5)],
    complete: true,
  });
  copy(rec.cache, rec.entry, 0, COPIES);
  const fresh: MissedRequest = {
    ...rec.origin,
    parts: { ...rec.entry.parts, messages: hex(1, 16).replace("e", "d") },
  };
  assert.deepEqual(nearSearch(rec.cache, fresh), { near: null, read: 0, stopped: null });
  assert.equal(missHint(rec.cache, fresh), null);
  const other: MissedRequest = {
    ...rec.origin,
    parts: { ...rec.entry.parts, params: "0".repeat(16) },
  };
  const found = nearSearch(rec.cache, other);
  assert.equal(found.read, 1);
  assert.equal(found.near?.file, rec.file);
  assert.equal(
    missHint(rec.cache, other),
    `the cache holds an answer to the same messages recorded with other parameters (${rec.file}): ` +
      "an option, a prompt strategy or the model's settings changed since it was recorded",
  );
  // many entries of the same messages, none near (two parts differ): the newest are read, no more
  const far = {
    ...rec.entry,
    parts: { ...rec.entry.parts, tools: "1".repeat(16), params: "2".repeat(16) },
  };
  for (let i = 0; i < 2 * INDEX_CANDIDATES; i++) {
    const key = hex(COPIES + i, 64);
    writeFileSync(join(rec.cache, `${key}.json`), JSON.stringify(far) + "\n");
    indexEntry(rec.cache, key, far.parts.messages);
  }
  assert.deepEqual(nearSearch(rec.cache, other), {
    near: null,
    read: INDEX_CANDIDATES,
    stopped: null,
  });
});

Deno.test("a cache older than its index is scanned for at most SCAN_LIMIT entries, and the miss says so", async () => {
  await using d = await tempDir();
  const rec = await record(d.path);
  try {
    copy(rec.cache, rec.entry, 0, COPIES);
    rmSync(join(rec.cache, INDEX_DIR), { recursive: true }); // entries of an earlier version
    const fresh: MissedRequest = {
      ...rec.origin,
      parts: { ...rec.entry.parts, messages: "d".repeat(16) },
    };
    const total = (COPIES + 1).toLocaleString("en-US");
    const limit = SCAN_LIMIT.toLocaleString("en-US");
    assert.deepEqual(nearSearch(rec.cache, fresh), {
      near: null,
      read: SCAN_LIMIT,
      stopped: { looked: SCAN_LIMIT, total: COPIES + 1 },
    });
    const note = `none of the ${limit} of the cache's ${total} entries looked at holds an answer ` +
      "to the same messages (the others were not compared)";
    assert.equal(missHint(rec.cache, fresh), note);
    // the CLI's error says it too (a new question: its messages part is another)
    const r = await rec.ask("a new question", "--offline");
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /Offline: no cached answer for backend "openai" \(model "m"\), request digest [0-9a-f]{64}; /,
    );
    assert.ok(r.stderr.includes(note), r.stderr);
  } finally {
    await rec.close();
  }
});

Deno.test("a big entry is read from its ends: only an entry of the same messages is read at its start", async () => {
  await using d = await tempDir();
  const rec = await record(d.path);
  await rec.close();
  const big = structuredClone(rec.entry);
  big.items[0].text = "x".repeat(1 << 20);
  const file = join(d.path, "big.json");
  writeFileSync(file, JSON.stringify(big) + "\n");
  const needle = `"messages":"${rec.entry.parts.messages}"`;
  const ends = entryEnds(file, { head: HEAD_BYTES, tail: TAIL_BYTES, needle })!;
  assert.equal(ends.whole, undefined);
  assert.equal(ends.head?.length, HEAD_BYTES);
  assert.equal(ends.tail.length, TAIL_BYTES);
  const { v, endpoint, backend, model, parts } = rec.entry;
  assert.deepEqual(entryFields(file, ends), { v, endpoint, backend, model, parts });
  assert.equal(
    entryEnds(file, { head: HEAD_BYTES, tail: TAIL_BYTES, needle: '"messages":"0"' }),
    null,
  );
  // written otherwise (another order of its first fields): read whole
  const { created, ...rest } = big;
  writeFileSync(file, JSON.stringify({ ...rest, created, v }) + "\n");
  const other = entryEnds(file, { head: HEAD_BYTES, tail: TAIL_BYTES, needle })!;
  assert.deepEqual(entryFields(file, other)?.items, big.items);
  // a small entry: whole
  const small = entryEnds(rec.file, { head: HEAD_BYTES, tail: TAIL_BYTES, needle })!;
  assert.equal(small.whole, readFileSync(rec.file, "utf8"));
});

Deno.test("the index: not whole in a directory this process did not make; lines cut, repeated or without their entry are skipped", async () => {
  await using d = await tempDir();
  const part = "a".repeat(16);
  indexEntry(d.path, "1".repeat(64), part);
  indexEntry(d.path, "2".repeat(64), part);
  indexEntry(d.path, "1".repeat(64), part);
  indexEntry(d.path, "3".repeat(64), "a" + "b".repeat(15)); // same file, other messages
  indexEntry(d.path, "5".repeat(64), "b".repeat(16)); // another file
  indexEntry(d.path, "not a key", part); // not written
  const shard = join(d.path, INDEX_DIR, "a.keys");
  writeFileSync(shard, `aaaaaaaaaa ${"4".repeat(64)}\n` + readFileSync(shard, "utf8"));
  assert.deepEqual(readdirSync(join(d.path, INDEX_DIR)).sort(), ["a.keys", "b.keys"]);
  assert.deepEqual(indexedKeys(d.path, part, 10), {
    keys: ["1".repeat(64), "2".repeat(64)],
    complete: false,
  });
  assert.deepEqual(indexedKeys(d.path, part, 1).keys, ["1".repeat(64)]);
  // listed, but no entry: skipped; then the directory scanned (not whole): nothing else
  const req = {
    endpoint: "",
    backend: "openai",
    model: "m",
    parts: { messages: part, tools: part, params: part, currentMeta: part },
  };
  assert.deepEqual(nearSearch(d.path, req), { near: null, read: 2, stopped: null });
});
