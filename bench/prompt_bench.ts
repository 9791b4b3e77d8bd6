/**
 * Strategy cost per inference at 100 / 1,000 / 10,000 tool calls.
 *
 *   tools/deno bench -P=test bench/prompt_bench.ts
 *
 * "warm": the tool loop's case — the same message objects come back every
 * round, so per-message facts (parsed JSON, sizes, compacted text) are
 * memoised and a round costs one pass over the list.
 * "cold": fresh message objects every call (a chat reloaded from disk), so
 * every tool message is parsed again; only the strategy call is timed.
 * Target (issue 3): ≤ 0.5 ms per turn at 1,000 calls (Ruby: 24–62 ms).
 */
import { preparePrompt } from "../src/prompt/prepare.ts";
import type { Message } from "../src/chat/types.ts";
import { agentSession } from "./cache_sim_session.ts";

const SIZES = [100, 1_000, 10_000];
const STRATEGIES = ["none", "shorten_tools", "shorten_tools_epoch"];
const config = { env: {} }; // defaults, independent of the caller's environment

const sessions = new Map<number, Message[]>();
for (const n of SIZES) sessions.set(n, agentSession({ calls: n }));

for (const strategy of STRATEGIES) {
  for (const n of SIZES) {
    const session = sessions.get(n)!;
    Deno.bench({
      name: `${strategy} warm ${n} calls`,
      group: `warm ${n}`,
      fn: () => {
        preparePrompt(session, strategy, config);
      },
    });
    Deno.bench({
      name: `${strategy} cold ${n} calls`,
      group: `cold ${n}`,
      n: n >= 10_000 ? 20 : undefined,
      fn: (b) => {
        const fresh = session.map((m) => ({ ...m }));
        b.start();
        preparePrompt(fresh, strategy, config);
        b.end();
      },
    });
  }
}
