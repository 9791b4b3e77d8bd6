/**
 * What the `openai` client costs a request, against a bare `fetch`: the floor
 * under scout-ai's overhead per model request (every OpenAI-compatible
 * backend sends through the SDK, DESIGN §"Dependencies"), and so under the
 * agents bench's per-call figure, whose window holds six requests.
 *
 * The loopback provider server runs in this (Deno) process; each variant runs
 * in a child process under Deno and under Bun, sending 140 small Chat
 * Completions requests 3 ms apart (the agents bench's count and pace: the
 * code stays as cold as it is there). Per request, medians of requests
 * 21–140, µs:
 * - to fetch = from the call to the moment the client calls `fetch`;
 * - in all = from the call to the parsed reply (the server's time included,
 *   the same for every variant).
 * Variants: `sdk` (`chat.completions.create` with a signal, the reply parsed
 * by the SDK), `sdk-json` (the same, the reply read with `.asResponse()` as
 * text and parsed, as scout-ai reads it: `sdkJson`), `sdk-nosignal`, and `fetch`
 * (`fetch` + `JSON.stringify` + `res.json()`).
 *
 * Run: `tools/deno run -A bench/openai_sdk_floor.ts [--runs N]`
 *
 * @module
 */
import process from "node:process";
import OpenAI from "openai";
import { selfRuntimes } from "./self_children.ts";
import { median } from "./stats.ts";

const REQUESTS = 140;
const VARIANTS = ["sdk", "sdk-json", "sdk-nosignal", "fetch"] as const;

async function child(url: string, variant: string): Promise<void> {
  let fetchAt = 0;
  const timedFetch = ((u: string, init: RequestInit) => {
    fetchAt = performance.now();
    return fetch(u, init);
  }) as typeof fetch;
  const client = new OpenAI({
    apiKey: "loopback-needs-no-key",
    baseURL: `${url}/v1`,
    maxRetries: 0,
    timeout: 1_200_000,
    fetch: timedFetch,
    logLevel: "off",
  });
  const toFetch: number[] = [];
  const inAll: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const body = {
      model: "scripted",
      messages: [{ role: "system", content: "You are SpecA." }, {
        role: "user",
        content: `question ${i}`,
      }],
    };
    const ac = new AbortController();
    const t0 = performance.now();
    if (variant === "fetch") {
      await timedFetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer x" },
        body: JSON.stringify(body),
        signal: ac.signal,
      }).then((r) => r.json());
    } else {
      // deno-lint-ignore no-explicit-any
      const b = body as any;
      await (variant === "sdk"
        ? client.chat.completions.create(b, { signal: ac.signal })
        : variant === "sdk-json"
        ? client.chat.completions.create(b, { signal: ac.signal }).asResponse()
          .then(async (r) => JSON.parse(await r.text()))
        : client.chat.completions.create(b));
    }
    inAll.push(performance.now() - t0);
    toFetch.push(fetchAt - t0);
    await new Promise((r) => setTimeout(r, 3));
  }
  const med = (xs: number[]) => median(xs.slice(20)) * 1000; // requests 21–140, µs
  console.log(JSON.stringify({ toFetch: med(toFetch), inAll: med(inAll) }));
}

async function main(): Promise<void> {
  // imported here, not at the top: the server is Deno-only and the children also run under Bun
  const { startProviderServer } = await import("../tests/support/provider_server.ts");
  const i = Deno.args.indexOf("--runs");
  const runs = i >= 0 ? Number(Deno.args[i + 1]) : 3;
  await using server = await startProviderServer({ fallback: () => ({ text: "fine" }) });
  console.log(`openai client per request, µs (medians of requests 21–${REQUESTS}, ${runs} runs)\n`);
  console.log(
    "| runtime | variant | to fetch | in all | in all − fetch's |\n|---|---|---:|---:|---:|",
  );
  for (const rt of selfRuntimes(import.meta.url)) {
    type Figures = { toFetch: number; inAll: number };
    const got = new Map<string, Figures[]>();
    for (let r = 0; r < runs; r++) {
      for (const v of VARIANTS) {
        const figures = await rt.child([server.url, v]) as Figures;
        got.set(v, [...got.get(v) ?? [], figures]);
      }
    }
    const m = (v: string, k: "toFetch" | "inAll") => median(got.get(v)!.map((x) => x[k]));
    for (const v of VARIANTS) {
      console.log(
        `| ${rt.name} | ${v} | ${m(v, "toFetch").toFixed(0)} | ${m(v, "inAll").toFixed(0)} | ` +
          `${(m(v, "inAll") - m("fetch", "inAll")).toFixed(0)} |`,
      );
    }
  }
}

const at = process.argv.indexOf("--child");
if (at >= 0) await child(process.argv[at + 1]!, process.argv[at + 2]!);
else if (import.meta.main) await main();
