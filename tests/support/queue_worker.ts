/**
 * A queue worker as a real process for the queue's tests (`src/llm/queue.ts`):
 * `queue_worker.ts DIR [slow-ms]` runs the loop on DIR until SIGTERM, each
 * answer `{"answer": "<id>", "by": <pid>}` after `slow-ms` (default 0), and
 * prints `claimed <id>` when it starts one and notices on stderr. The LLM edge only is stood in for.
 */
import { runQueue } from "../../src/llm/queue.ts";

const [dir, slow = "0"] = Deno.args;
const ac = new AbortController();
Deno.addSignalListener("SIGTERM", () => ac.abort());
const stats = await runQueue({
  dir: dir!,
  out: "reply",
  intervalMs: 50,
  staleMs: Number(Deno.env.get("QUEUE_STALE_MS") ?? 60_000),
  signal: ac.signal,
  notice: (l) => console.error(l),
  answer: async (_req, id, signal) => {
    console.log(`claimed ${id}`);
    await new Promise((r, j) => {
      const t = setTimeout(r, Number(slow));
      signal.addEventListener("abort", () => (clearTimeout(t), j(signal.reason)));
    });
    return { answer: id, by: Deno.pid };
  },
});
console.log(`done ${JSON.stringify(stats)}`);
Deno.exit(0);
