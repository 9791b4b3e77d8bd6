/**
 * What one request to the loopback provider server costs with no client
 * library and no harness: a bare `fetch` + `JSON.stringify` + `res.json()`,
 * 300 small Chat Completions requests (medians of the last 250), from a child
 * under Deno and under Bun, back to back and then 3 ms apart (the agents
 * bench's pace, during which both processes can fall asleep). Prints the
 * round trip and the server's handler time (arrival → first byte), µs. The
 * difference between the two paces is the processes waking up — on a virtual
 * machine whose idle CPUs halt, hundreds of microseconds (design-notes,
 * "Seventh pass"); `bench/agents_floor.ts` measures it on the agents
 * scenario itself.
 *
 * Run: `tools/deno run -A bench/loopback_rtt.ts`
 *
 * @module
 */
import process from "node:process";
import { selfRuntimes } from "./self_children.ts";
import { median } from "./stats.ts";

const REQUESTS = 300;
const WARM = 50;

async function child(url: string, paceMs: number): Promise<void> {
  const ms: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const t0 = performance.now();
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "scripted",
        messages: [{ role: "system", content: "You are SpecA." }, {
          role: "user",
          content: `${i}`,
        }],
      }),
    });
    await res.json();
    ms.push(performance.now() - t0);
    if (paceMs > 0) await new Promise((r) => setTimeout(r, paceMs));
  }
  console.log(JSON.stringify({ roundTripUs: median(ms.slice(WARM)) * 1000 }));
}

async function main(): Promise<void> {
  // imported here, not at the top: the server is Deno-only and the children also run under Bun
  const { startProviderServer } = await import("../tests/support/provider_server.ts");
  await using server = await startProviderServer({ fallback: () => ({ text: "fine" }) });
  console.log("| runtime | pace | round trip, µs | server's handler, µs |\n|---|---|---:|---:|");
  for (const rt of selfRuntimes(import.meta.url)) {
    for (const pace of [0, 3]) {
      const from = server.requests.length;
      const { roundTripUs } = await rt.child([server.url, String(pace)]) as { roundTripUs: number };
      const handler = median(
        server.requests.slice(from + WARM).map((r) => (r.firstByteAt! - r.arrivedAt) * 1000),
      );
      const paced = pace === 0 ? "back to back" : `${pace} ms apart`;
      console.log(`| ${rt.name} | ${paced} | ${roundTripUs.toFixed(0)} | ${handler.toFixed(0)} |`);
    }
  }
}

const at = process.argv.indexOf("--child");
if (at >= 0) await child(process.argv[at + 1]!, Number(process.argv[at + 2]));
else if (import.meta.main) await main();
