import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { idTable, uuidWords } from "../../src/provenance/id_table.ts";

Deno.test("id table: UUIDs and other strings map exactly, through growth", () => {
  const t = idTable();
  const keys: string[] = [];
  for (let i = 0; i < 5000; i++) keys.push(randomUUID());
  const upper = keys[0]!.toUpperCase(); // same bits, another string
  const near = keys[1]!.slice(0, 35) + (keys[1]!.endsWith("0") ? "1" : "0");
  const others = ["", "lineage-ab", "resp_1", upper, keys[2]! + " ", "g1", "0".repeat(36)];
  keys.forEach((k, i) => t.add(k, i));
  others.forEach((k, i) => t.add(k, 10_000 + i));
  keys.forEach((k, i) => assert.equal(t.get(k), i, k));
  others.forEach((k, i) => assert.equal(t.get(k), 10_000 + i, JSON.stringify(k)));
  assert.equal(t.get(near), -1);
  assert.equal(t.get(randomUUID()), -1);
  assert.equal(t.get("missing"), -1);
  assert.equal(t.size, keys.length + others.length);
});

Deno.test("id table: a UUID's words find what its string added, and the other way round", () => {
  const t = idTable();
  const keys = Array.from({ length: 3000 }, () => randomUUID());
  const words = new Uint32Array(keys.length * 4);
  keys.forEach((k, i) => assert.ok(uuidWords(k, words, i * 4), k));
  // half added by string, half by words, across the table's growth
  keys.forEach((k, i) => i % 2 === 0 ? t.add(k, i) : t.addWords(words, i * 4, i));
  keys.forEach((k, i) => {
    assert.equal(t.get(k), i, k);
    assert.equal(t.getWords(words, i * 4), i, k);
  });
  const stranger = new Uint32Array(4);
  assert.ok(uuidWords(randomUUID(), stranger, 0));
  assert.equal(t.getWords(stranger, 0), -1);
  assert.equal(uuidWords(keys[0]!.toUpperCase(), stranger, 0), false);
  assert.equal(uuidWords("lineage-ab", stranger, 0), false);
});
