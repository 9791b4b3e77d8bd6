/** The cache simulator's accounting (bench/cache_sim.ts) on hand-computed cases. */
import assert from "node:assert/strict";
import {
  anthropicCached,
  cacheTotals,
  messageText,
  openAiCached,
  recordInferences,
  simulate,
} from "../../bench/cache_sim.ts";
import { agentSession, inferencePrompts } from "../../bench/cache_sim_session.ts";
import type { Message } from "../../src/chat/types.ts";

const rec = (
  promptTokens: number,
  prefixTokens: number,
  extendsPrevious = true,
  systemTokens = 0,
) => ({
  promptTokens,
  prefixTokens,
  extendsPrevious,
  systemTokens,
});

Deno.test("OpenAI rules: ≥ 1,024 tokens, then 128-token steps", () => {
  assert.equal(openAiCached(rec(1000, 1000)), 0); // prompt too short
  assert.equal(openAiCached(rec(5000, 1023)), 0); // prefix too short
  assert.equal(openAiCached(rec(5000, 1024)), 1024);
  assert.equal(openAiCached(rec(5000, 1151)), 1024);
  assert.equal(openAiCached(rec(5000, 1152)), 1152);
  assert.equal(openAiCached(rec(5000, 4999)), 4992);
});

Deno.test("Anthropic rules: exact previous prompt, else the system breakpoint", () => {
  assert.equal(anthropicCached(rec(5000, 4000, true), 4000), 4000);
  assert.equal(anthropicCached(rec(5000, 3999, false, 2000), 4000), 2000);
  assert.equal(anthropicCached(rec(5000, 1500, false, 2000), 4000), 0); // system changed
  assert.equal(anthropicCached(rec(5000, 4000, false, 500), 4000), 0); // system too short to cache
  assert.equal(anthropicCached(rec(900, 800, true), 800), 0); // below the minimum
});

Deno.test("prefixes are measured message-wise, then char-wise inside the first difference", () => {
  const sys: Message = { role: "system", content: "s".repeat(4000) };
  const a: Message = { role: "user", content: "abcdefgh" };
  const b: Message = { role: "user", content: "abcdXXXX" };
  const r = recordInferences([[sys, a], [sys, b], [sys, b, a]]);
  const sysLen = messageText(sys).length;
  assert.equal(r[1]!.prefixTokens, Math.floor((sysLen + messageText(a).indexOf("abcd") + 4) / 4));
  assert.equal(r[1]!.extendsPrevious, false);
  assert.equal(r[2]!.extendsPrevious, true);
  assert.equal(r[2]!.prefixTokens, Math.floor((sysLen + messageText(b).length) / 4));
  const t = cacheTotals(r);
  assert.equal(t.openai.inputTokens, r.reduce((n, x) => n + x.promptTokens, 0));
});

Deno.test("the 300-call session: epoch defaults reach ≥ 85 % cache reads with a bounded prompt", () => {
  const prompts = inferencePrompts(agentSession({ calls: 300 }));
  assert.equal(prompts.length, 301);
  const none = simulate(prompts, "none", "none");
  const epoch = simulate(prompts, "epoch", "shorten_tools_epoch");
  const shorten = simulate(prompts, "shorten_tools", "shorten_tools");
  assert.equal(none.prefixBreaks, 0);
  assert.ok(epoch.openai.cacheReadShare >= 0.85, `${epoch.openai.cacheReadShare}`);
  assert.ok(epoch.anthropic.cacheReadShare >= 0.85, `${epoch.anthropic.cacheReadShare}`);
  assert.equal(epoch.prefixBreaks, 13); // entering compaction, then one per 20 calls
  assert.ok(epoch.maxPromptTokens < none.maxPromptTokens / 3);
  assert.ok(shorten.openai.cacheReadShare < 0.5);
});
