/**
 * The option lines of a start chat lifted into agent options ([TS-FIX] §7.5)
 * stay the agent's own: `optionsUnlifted` — what its specialists inherit
 * (§3.3) — has each lifted key as it was before the lift, unless it was set
 * again since.
 */
import assert from "node:assert/strict";
import { createAgent } from "../../src/agent/agent.ts";
import { liftStartOptions, optionsUnlifted } from "../../src/agent/lift.ts";

const lines = (model: string) => [
  { role: "system", content: "You lead" },
  { role: "model", content: model },
  { role: "endpoint", content: "line-ep" },
];

Deno.test("optionsUnlifted: the options before the lift; flags are not lifted; a value set since is kept", () => {
  const a = createAgent({ startChat: lines("boss-model"), options: { endpoint: "own", x: 1 } });
  liftStartOptions(a, {});
  assert.deepEqual(a.options, { endpoint: "line-ep", x: 1, model: "boss-model" });
  assert.deepEqual(a.startChat, [{ role: "system", content: "You lead" }]);
  assert.deepEqual(optionsUnlifted(a), { endpoint: "own", x: 1 });
  // a second lift: what the first replaced is still what the options were before
  a.startChat = lines("second");
  liftStartOptions(a, {});
  assert.equal(a.options.model, "second");
  assert.deepEqual(optionsUnlifted(a), { endpoint: "own", x: 1 });
  // set by the application since the lift: its own, inherited
  a.options.model = "app-model";
  assert.deepEqual(optionsUnlifted(a), { endpoint: "own", x: 1, model: "app-model" });
  // a flag (-m) is an agent option, never lifted over: it stays
  const b = createAgent({ startChat: lines("boss-model"), options: { model: "flag" } });
  liftStartOptions(b, { model: "flag" });
  assert.deepEqual(b.options, { model: "flag", endpoint: "line-ep" });
  assert.deepEqual(optionsUnlifted(b), { model: "flag" });
  // an agent never lifted: its options as they are
  assert.deepEqual(optionsUnlifted(createAgent({ options: { model: "m" } })), { model: "m" });
});
