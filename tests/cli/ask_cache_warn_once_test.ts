/**
 * A cache entry that cannot be read is a miss, told once per ask: the round
 * reads it at its probe and again under the key's lock (R73-6).
 */
import assert from "node:assert/strict";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setup } from "./llm_ask_support.ts";

Deno.test("a torn cache entry: one warning, the question asked again and the entry replaced", async () => {
  await using t = await setup();
  t.srv.script({ text: "first" }, { text: "second" });
  const one = await t.run(["ask", ...t.flags, "Capital of France?"]);
  assert.equal(one.code, 0, one.stderr);
  const dir = join(t.env.SCOUT_HOME, "var", "cache", "ask");
  const entries = readdirSync(dir).filter((f) => f.endsWith(".json"));
  assert.equal(entries.length, 1);
  writeFileSync(join(dir, entries[0]!), '{"v":2,"items":[');
  const two = await t.run(["ask", ...t.flags, "Capital of France?"]);
  assert.equal(two.code, 0, two.stderr);
  assert.equal(two.stdout, "second\n");
  const warnings = two.stderr.split("\n").filter(Boolean);
  assert.equal(warnings.length, 1, two.stderr);
  assert.match(warnings[0]!, new RegExp(entries[0]!.replace(".", "\\.")));
  assert.equal(t.srv.requests.length, 2);
  // replaced: the third time is a hit
  const three = await t.run(["ask", ...t.flags, "Capital of France?"]);
  assert.equal(three.stdout, "second\n");
  assert.equal(three.stderr, "");
  assert.equal(t.srv.requests.length, 2);
});
