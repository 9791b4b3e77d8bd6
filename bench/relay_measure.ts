/**
 * Relay round trip through a local queue directory (issue 15): a client ask
 * with `backend: relay` → `llm process` worker (a subprocess of this repo's
 * CLI, kept running) → the loopback provider → the reply back. Reports p50 /
 * p95 over 100 requests of the wall time minus the provider's own time.
 * Target: ≤ 50 ms beyond the provider's time.
 *
 * Run: `tools/deno task bench-relay [N]`.
 */
import { join } from "node:path";
import { ask } from "../src/llm/ask.ts";
import { newSession } from "../src/llm/meta_record.ts";
import { startProviderServer } from "../tests/support/provider_server.ts";

const N = Number(Deno.args[0] ?? 100);
const root = await Deno.makeTempDir({ prefix: "scout-relay-bench-" });
const queue = join(root, "queue");
const home = join(root, "worker-home");
await Deno.mkdir(join(home, "etc", "AI"), { recursive: true });
const srv = await startProviderServer({
  fallback: () => ({ text: "ok", usage: { pt: 1, ct: 1 } }),
});
await Deno.writeTextFile(
  join(home, "etc", "AI", "loop.yaml"),
  `backend: openai\nurl: ${srv.url}\nmodel: m\n`,
);
const cli = new URL("../cli.ts", import.meta.url).pathname;
const worker = new Deno.Command(Deno.execPath(), {
  args: ["run", "-A", cli, "llm", "process", queue],
  env: { SCOUT_HOME: home, LLM_ENDPOINT: "loop", OPENAI_API_KEY: "sk-bench" },
  stdout: "null",
  stderr: "null",
}).spawn();

const q = () => ({
  backend: "relay",
  server: queue,
  persist: false,
  env: { SCOUT_HOME: join(root, "client-home") },
  config: { entries: [] },
  session: newSession(),
  request_timeout: 60,
});
// warm-up: the worker's first ask loads its modules
await ask([{ role: "user", content: "warm up" }], q());
const overheads: number[] = [];
for (let i = 0; i < N; i++) {
  const before = srv.requests.length;
  const t0 = performance.now();
  await ask([{ role: "user", content: `question ${i}` }], q());
  const wall = performance.now() - t0;
  const r = srv.requests[before]!;
  const providerMs = (r.firstByteAt ?? r.receivedAt) - r.receivedAt;
  overheads.push(wall - providerMs);
}
worker.kill("SIGTERM");
await worker.status;
await srv.close();
await Deno.remove(root, { recursive: true });

overheads.sort((a, b) => a - b);
const pct = (p: number) =>
  overheads[Math.min(overheads.length - 1, Math.floor(p * overheads.length))]!;
console.log(`| relay via a local directory (${N} requests) | ms |`);
console.log(`|---|---|`);
console.log(`| p50 overhead (wall − provider) | ${pct(0.5).toFixed(1)} |`);
console.log(`| p95 overhead (wall − provider) | ${pct(0.95).toFixed(1)} |`);
console.log(`| target | ≤ 50 |`);
