/**
 * The option lines of a start chat lifted into agent options ([TS-FIX] §7.5)
 * stay the agent's own: `optionsUnlifted` — what its specialists inherit
 * (§3.3) — has each lifted key as it was before the lift, unless it was set
 * again since.
 */
import assert from "node:assert/strict";
import { createAgent } from "../../src/agent/agent.ts";
import { liftStartOptions, optionsUnlifted } from "../../src/agent/lift.ts";
import { inheritCallerOptions } from "../../src/agent/hand_off_options.ts";

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

Deno.test("a clone of a lifted agent keeps the lift record: its specialists do not get the start chat's lines (R61-8)", async () => {
  const { cloneAgent, socialOptions } = await import("../../src/agent/socialize.ts");
  const reasoning = { effort: "low" };
  const a = createAgent({ startChat: lines("boss-model"), options: { endpoint: "own", x: 1 } });
  liftStartOptions(a, {});
  a.options.reasoning = reasoning; // set by the application after the lift: inherited
  const c = cloneAgent(a);
  assert.deepEqual(c.options, { endpoint: "line-ep", x: 1, model: "boss-model", reasoning });
  assert.deepEqual(optionsUnlifted(c), { endpoint: "own", x: 1, reasoning });
  assert.deepEqual(socialOptions(c), { endpoint: "own", x: 1, reasoning });
  // set on the clone since: the clone's own; the template unchanged
  c.options.model = "clone-model";
  assert.deepEqual(optionsUnlifted(c), { endpoint: "own", x: 1, reasoning, model: "clone-model" });
  assert.deepEqual(optionsUnlifted(a), { endpoint: "own", x: 1, reasoning });
  // an object lifted (a `format:` line) and still the template's: the clone's deep copy of it
  // is the lifted value, not one set since
  const f = createAgent({
    startChat: [{ role: "system", content: "s" }, { role: "format", content: '{"type":"object"}' }],
  });
  liftStartOptions(f, {});
  assert.deepEqual(f.options, { format: { type: "object" } });
  const fc = cloneAgent(f);
  assert.notEqual(fc.options.format, f.options.format);
  assert.deepEqual(optionsUnlifted(fc), {});
});

Deno.test("an option line named like an Object.prototype member is lifted and unlifted as any (R112-5)", () => {
  const a = createAgent({
    startChat: [{ role: "option", content: "toString 1" }, {
      role: "option",
      content: "valueOf 2",
    }],
  });
  liftStartOptions(a, {});
  // before: `k in explicit` found Object.prototype's member: the lines were never lifted
  assert.equal(Object.hasOwn(a.options, "toString"), true);
  assert.deepEqual({ ...a.options }, { toString: "1", valueOf: "2" });
  assert.deepEqual({ ...optionsUnlifted(a) }, {});
});

Deno.test("a hand-off's agent takes what it lacks of its caller's agent options: not the caller's lines, never over its own (R140-4)", () => {
  const caller = createAgent({
    startChat: lines("boss-model"),
    options: { backend: "openai", persist: "false", format: "json", tools: {} },
  });
  liftStartOptions(caller, {});
  // lifted: the critic's own line, an option line it keeps in its start chat (the task route)
  const critic = createAgent({ startChat: lines("critic-model"), options: { persist: "true" } });
  liftStartOptions(critic, {});
  const onRoute = createAgent({ startChat: lines("route-model") });
  for (const agent of [critic, onRoute]) inheritCallerOptions(agent, caller);
  assert.deepEqual(critic.options, {
    persist: "true",
    model: "critic-model",
    endpoint: "line-ep",
    backend: "openai",
  });
  assert.deepEqual(onRoute.options, { backend: "openai", persist: "false" });
  // set on it, they are its own: its specialists inherit them
  assert.deepEqual(optionsUnlifted(critic), { persist: "true", backend: "openai" });
});
