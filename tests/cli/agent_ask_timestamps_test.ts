/**
 * The timestamps of delegated calls (`inference.md` §5.5 [TS-FIX] per-call
 * start/end, docs/design-notes.md "Delegation"): in a batch of `ask` calls,
 * each output's `timestamp` is the end of that specialist's own run, not of
 * the whole batch (R132-1), so `llm prov --tools` shows each call's duration.
 * Real `agent ask` into a real chat file, against the loopback provider.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { clearAgentCache } from "../../src/agent/load.ts";
import { parse } from "../../src/chat/parse.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { put } from "../support/files.ts";

type Wire = { role: string; content: string };
type Output = { id: string; start_timestamp: string; timestamp: string; receipt: number };

/**
 * Runs `agent ask Boss -o out.chat go` where Boss asks specialists S1…Sn
 * (one call each) and Sk answers after `delays[k-1]` ms; returns the outputs'
 * stamps (ms) with their receipt's, and `llm prov --tools` durations by call id.
 */
async function delegatedBatch(delays: number[], askAgents: string) {
  await using t = await tempDir();
  const names = delays.map((_, k) => `S${k + 1}`);
  await using srv = await startProviderServer({
    fallback: (req) => {
      const msgs = req.body.messages as Wire[];
      const who = msgs[0]!.content.replace(/^You are /, "");
      if (who !== "Boss") return { text: `${who} answer`, delayMs: delays[names.indexOf(who)]! };
      if (msgs.at(-1)!.role === "tool") return { text: "boss done" };
      return {
        toolCalls: names.map((n, k) => ({
          id: `call_${k}`,
          name: "ask",
          arguments: { agent: n, prompt: `task ${k}` },
        })),
      };
    },
  });
  const home = join(t.path, "home");
  put(home, "etc/AI/ep.yaml", `backend: openai\nurl: ${srv.url}\nmodel: m\n`);
  put(t.path, "Agent/Boss/start_chat", "system: You are Boss\n\nendpoint: ep\n\nsocialize: true\n");
  for (const n of names) {
    put(t.path, `Agent/${n}/start_chat`, `system: You are ${n}\n\nendpoint: ep\n`);
  }
  clearAgentCache();
  const env = { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x", ASK_AGENTS: askAgents, NO_COLOR: "1" };
  const out = join(t.path, "out.chat");
  const args = ["agent", "ask", "Boss", "--no-stream", "--no-cache", "-o", out, "go"];
  const r = await runMain(args, { env, cwd: t.path });
  assert.equal(r.code, 0, r.stderr);
  const outputs: Output[] = parse(readFileSync(out, "utf8"))
    .filter((m) => m.role === "function_call_output")
    .map((m) => {
      const env = JSON.parse(String(m.content));
      const metas = env.agent_meta as { content: string }[];
      assert.equal(metas.length, 1, String(m.content));
      const at = /timestamp=(\S+)/.exec(metas[0]!.content)![1]!;
      return { ...env, receipt: Date.parse(at) };
    });
  const prov = await runMain(["llm", "prov", out, "--tools", "--json"], { env, cwd: t.path });
  assert.equal(prov.code, 0, prov.stderr);
  const calls = JSON.parse(prov.stdout).calls as { callId: string; durationMs: number }[];
  const durations = new Map(calls.map((c) => [c.callId, c.durationMs]));
  return { outputs, durations };
}

const ms = (iso: string) => Date.parse(iso);
/** An output's stamps, for a failure message: start, end and its answer's arrival. */
const stamps = (
  o: Output,
) => [o.id, o.start_timestamp, o.timestamp, new Date(o.receipt).toISOString()];

Deno.test("ASK_AGENTS=1: each delegated call is stamped when its own specialist began and ended", async () => {
  const delay = 300;
  const { outputs, durations } = await delegatedBatch([delay, delay, delay], "1");
  assert.deepEqual(outputs.map((o) => o.id), ["call_0", "call_1", "call_2"]);
  for (const [k, o] of outputs.entries()) {
    const end = ms(o.timestamp);
    const what = `${o.id}: ${JSON.stringify(outputs.map(stamps))}`;
    // its run ended after its answer arrived, and before the next specialist's answer
    // (relations only: no slack in ms, which a loaded machine would overrun)
    assert.ok(end >= o.receipt, what);
    const next = outputs[k + 1];
    if (next) assert.ok(end <= next.receipt, `${what} ends after the next call's answer`);
    assert.equal(durations.get(o.id), end - ms(o.start_timestamp), `prov duration of ${o.id}`);
    // it began after its wait in the queue (the previous run's end), before its answer came
    const before = outputs[k - 1];
    if (before) assert.ok(ms(o.start_timestamp) >= ms(before.timestamp), `${what} began early`);
    assert.ok(ms(o.start_timestamp) < o.receipt, what);
    assert.ok(durations.get(o.id)! >= delay, `${what}: its own run, at least its answer's delay`);
  }
});

Deno.test("ASK_AGENTS=3: parallel specialists' outputs end each at its own run's end", async () => {
  const { outputs } = await delegatedBatch([100, 500, 900], "3");
  for (const [k, o] of outputs.entries()) {
    const end = ms(o.timestamp);
    const what = `${o.id}: ${JSON.stringify(outputs.map(stamps))}`;
    // after its own answer, before the slower specialists' answers (400 ms later each)
    assert.ok(end >= o.receipt, what);
    const next = outputs[k + 1];
    if (next) assert.ok(end < next.receipt, `${what} ends after the next call's answer`);
  }
});
