/**
 * Hop figures of `bench/agents_bench.ts` (`--hops`): where each round's
 * delegation window goes, request by request, in the server's clock.
 *
 * @module
 */
import type { RecordedRequest } from "../tests/support/provider_server.ts";
import { REQUESTS_PER_ROUND, ROUNDS, stepOf } from "./agents_scenario.ts";
import { median } from "./stats.ts";

const f2 = (x: number) => x.toFixed(2);

/**
 * Each round's requests in arrival order, as hops from the one before.
 *
 * @param reqs a run's requests
 * @returns per round, `[from → to, ms]`
 */
export function hopsOf(reqs: RecordedRequest[]): [string, number][][] {
  const out: [string, number][][] = [];
  for (let k = 0; k < ROUNDS; k++) {
    const round = reqs.slice(k * REQUESTS_PER_ROUND, (k + 1) * REQUESTS_PER_ROUND);
    out.push(
      round.slice(1).map((r, i) => {
        const prev = round[i]!;
        return [
          `${stepOf(prev)} → ${stepOf(r)}`,
          r.arrivedAt - (prev.firstByteAt ?? prev.receivedAt),
        ];
      }),
    );
  }
  return out;
}

/**
 * Where the per-call window goes: for each hop seen in at least a quarter of
 * the warm rounds, its median (ms from the previous request's first byte to
 * this one's arrival: the reply's way back, the harness's work, the request's
 * way there).
 *
 * @param ms the runs' hops
 * @returns one line
 */
export function hopLine(ms: { hops: [string, number][][] }[]): string {
  const by = new Map<string, number[]>();
  for (const m of ms) {
    for (const round of m.hops.slice(1)) {
      for (const [hop, t] of round) by.set(hop, [...by.get(hop) ?? [], t]);
    }
  }
  const rounds = ms.length * (ROUNDS - 1);
  return [...by].filter(([, ts]) => ts.length * 4 >= rounds) // the usual order; rarer ones left out
    .map(([hop, ts]) => `${hop} ${f2(median(ts))}`).join(", ");
}
