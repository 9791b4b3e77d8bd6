/**
 * Tools returning `{agent}` (agents.md §3.2): the dispatcher collects them and
 * hands them to the runner from above after every call of the batch was
 * dispatched; the answers become the outputs, receipts go to `agent_meta`,
 * failures become error outputs.
 */
import assert from "node:assert/strict";
import type { Message } from "../../src/chat/types.ts";
import { isAgentRequest } from "../../src/tools/agent_results.ts";
import { runToolCalls } from "../../src/tools/dispatch.ts";
import { toolRegistry } from "../../src/tools/registry.ts";

const fco = (m: Message[], i: number) => JSON.parse(m[2 * i + 1]!.content as string);

Deno.test("isAgentRequest accepts only {agent: object}", () => {
  assert.equal(isAgentRequest({ agent: { name: "W" } }), true);
  assert.equal(isAgentRequest({ agent: "W" }), false);
  assert.equal(isAgentRequest({ agent: {}, other: 1 }), false);
  assert.equal(isAgentRequest(null), false);
  assert.equal(isAgentRequest([{ agent: {} }]), false);
});

Deno.test("agents returned by tools run after the whole batch, in call order, with receipts", async () => {
  const events: string[] = [];
  const w1 = { name: "W1" };
  const w2 = { name: "W2" };
  const registry = toolRegistry({
    ask: [(_n, a) => {
      events.push(`dispatch ${a.agent}`);
      return { agent: a.agent === "W1" ? w1 : w2 };
    }, { name: "ask" }],
    plain: [() => {
      events.push("plain");
      return "plain out";
    }, { name: "plain" }],
  });
  const meta: Message = { role: "meta", content: "pt=10 ct=5 tt=15 inference_id=abc" };
  const out = await runToolCalls([
    { name: "ask", arguments: { agent: "W1" }, id: "c1" },
    { name: "plain", arguments: {}, id: "c2" },
    { name: "ask", arguments: { agent: "W2" }, id: "c3" },
  ], {
    registry,
    runSpecialists: (agents) => {
      events.push(`run ${agents.map((a) => (a as { name: string }).name).join(",")}`);
      return Promise.resolve([
        { content: "w1 answer", agent_meta: [meta] },
        { content: "w2 answer", agent_meta: [] },
      ]);
    },
  });
  assert.deepEqual(events, ["dispatch W1", "plain", "dispatch W2", "run W1,W2"]);
  assert.deepEqual(out.map((m) => m.role), [
    "function_call",
    "function_call_output",
    "function_call",
    "function_call_output",
    "function_call",
    "function_call_output",
  ]);
  const o1 = fco(out, 0);
  assert.equal(o1.content, "w1 answer");
  assert.deepEqual(o1.agent_meta, [meta]);
  assert.deepEqual(Object.keys(o1), [
    "name",
    "content",
    "id",
    "agent_meta",
    "start_timestamp",
    "timestamp",
  ]);
  assert.equal(fco(out, 1).content, "plain out");
  assert.equal(fco(out, 2).content, "w2 answer");
  assert.equal("agent_meta" in fco(out, 2), false, "empty receipts are not attached");
});

Deno.test("a failed specialist and a missing runner become error outputs", async () => {
  const registry = toolRegistry({ ask: [() => ({ agent: {} }), { name: "ask" }] });
  const call = [{ name: "ask", arguments: {}, id: "c1" }];
  const failed = await runToolCalls(call, {
    registry,
    runSpecialists: () => Promise.resolve([{ content: "", error: new Error("Boom in W") }]),
  });
  assert.equal(fco(failed, 0).error, "error");
  assert.match(fco(failed, 0).content, /Boom in W/);
  const thrown = await runToolCalls(call, {
    registry,
    runSpecialists: () => Promise.reject(new Error("Runner broke")),
  });
  assert.match(fco(thrown, 0).content, /Runner broke/);
  const none = await runToolCalls(call, { registry });
  assert.equal(fco(none, 0).error, "error");
  assert.match(fco(none, 0).content, /returned an agent but no specialist runner/);
});

Deno.test("each specialist's output is stamped when the runner says its run ended (R132-1)", async () => {
  let tick = 0;
  const now = () => new Date(Date.UTC(2026, 0, 1, 0, 0, tick++));
  const registry = toolRegistry({ ask: [() => ({ agent: {} }), { name: "ask" }] });
  const calls = ["c1", "c2", "c3"].map((id) => ({ name: "ask", arguments: {}, id }));
  const ac = new AbortController();
  const out = await runToolCalls(calls, {
    registry,
    now,
    signal: ac.signal,
    runSpecialists: (_agents, ended) => {
      ended!(1); // the second run stops, then the first; the third never says
      ended!(0);
      ended!(1); // a second word for a run changes nothing
      ended!(7);
      ac.abort(new Error("stop"));
      return Promise.resolve([
        { content: "", error: new Error("stopped") },
        { content: "", error: new Error("stopped too") },
        { content: "late answer" },
      ]);
    },
  }).catch((e) => (e as { messages: Message[] }).messages);
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
  // dispatch took ticks 0–2; c2 ended at 3, c1 at 4; c3's end is read when its output is made
  assert.deepEqual(
    [0, 1, 2].map((i) => [fco(out, i).start_timestamp, fco(out, i).timestamp]),
    [[at(0), at(4)], [at(1), at(3)], [at(2), at(5)]],
  );
  assert.match(fco(out, 0).content, /interrupted before it finished: stop/);
  assert.match(fco(out, 1).content, /interrupted before it finished: stop/);
  assert.equal(fco(out, 2).content, "late answer");
});
