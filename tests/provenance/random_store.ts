/**
 * Random provenance stores for property tests: jobs with dependencies, log
 * chats (society logs too) holding metas — some without an inference id,
 * some with a provider response id — receipts copying or disputing them,
 * delegated jobs, projection markers, and a root chat.
 *
 * @module
 */
import { join } from "node:path";
import fc from "fast-check";
import type { Message } from "../../src/chat/types.ts";
import { print as printChat } from "../../src/chat/print.ts";
import { entry, meta, mkJob, write } from "./support.ts";

// Inference ids: short strings, and UUIDs (kept as their bits by the event
// table when lower-case: `id_table.ts`), one of them upper-case (kept as a string).
const UUID_B = "0b1e2d3c-4a5b-4c6d-8e7f-90a1b2c3d4e5";
const UUID_B_UPPER = UUID_B.toUpperCase();
const UUID_X = "ffffffff-0000-4000-8000-00000000000a";

/** A random store's shape. */
export const storeArb = fc.record({
  jobs: fc.array(
    fc.record({
      deps: fc.array(fc.nat(5), { maxLength: 3 }),
      chatType: fc.boolean(),
      logs: fc.array(
        fc.array(
          fc.record({
            id: fc.constantFrom("a", UUID_B, UUID_B_UPPER, "d", "e", "f", ""),
            prid: fc.constantFrom("", "", "r1", "r2"),
            tt: fc.constantFrom(10, 20, 30),
            cct: fc.constantFrom(0, 5),
            receipt: fc.option(
              fc.record({
                id: fc.constantFrom("a", UUID_B, UUID_B_UPPER, UUID_X, ""),
                tt: fc.constantFrom(10, 20, 31),
                job: fc.option(fc.nat(5), { nil: null }),
              }),
              { nil: null },
            ),
            marker: fc.option(fc.nat(5), { nil: null }),
          }),
          { maxLength: 4 },
        ),
        { maxLength: 2 },
      ),
    }),
    { minLength: 1, maxLength: 6 },
  ),
  rootMarkers: fc.array(fc.nat(5), { minLength: 1, maxLength: 3 }),
});

/** A store {@link storeArb} generated. */
export type RandomStore = typeof storeArb extends fc.Arbitrary<infer T> ? T : never;

/**
 * Writes a random store under `dir` (`jobs/Wf/t/J<i>`, `root.chat`).
 *
 * @param dir target directory
 * @param store the shape
 * @returns the root chat's path
 */
export function writeRandomStore(dir: string, store: RandomStore): string {
  const n = store.jobs.length;
  const jobPath = (i: number) => join(dir, "jobs", "Wf", "t", `J${i % n}`);
  const short = (i: number) => `Wf/t/J${i % n}`;
  store.jobs.forEach((job, i) => {
    const logs: Record<string, string> = {};
    job.logs.forEach((events, li) => {
      const chat: Message[] = [{ role: "user", content: `job ${i} log ${li}` }];
      for (const e of events) {
        const id = e.id === "" ? "" : ` inference_id=${e.id}`;
        chat.push(meta(`pt=${e.tt - 1} ct=1 tt=${e.tt} cct=${e.cct}${id}`));
        if (e.receipt !== null) {
          const rid = e.receipt.id === "" ? "" : ` inference_id=${e.receipt.id}`;
          const agentMeta = [entry(`pt=1 tt=${e.receipt.tt}${rid}`)];
          if (e.receipt.job !== null) agentMeta.push(entry(`job=${short(e.receipt.job)}`));
          chat.push(
            { role: "function_call", content: JSON.stringify({ name: "ask", id: `k${li}` }) },
            {
              role: "function_call_output",
              content: JSON.stringify({
                name: "ask",
                content: "ok",
                id: `k${li}`,
                agent_meta: agentMeta,
              }),
            },
          );
        }
        if (e.marker !== null) chat.push(meta(`job=${short(e.marker)}`));
        chat.push({ role: "assistant", content: "ok" });
      }
      logs[li === 0 ? "agent.chat" : `society/A/c${li}.chat`] = chatText(chat);
    });
    mkJob(
      jobPath(i),
      job.deps.map(jobPath),
      logs,
      { type: job.chatType ? "chat" : "text" },
      job.chatType ? `\nmeta: job=${short(i)}\n\nassistant:\n\nanswer ${i}\n` : "done\n",
    );
  });
  return write(
    join(dir, "root.chat"),
    chatText([
      { role: "user", content: "go" },
      ...store.rootMarkers.map((m) => meta(`job=${short(m)}`)),
    ]),
  );
}

function chatText(chat: Message[]): string {
  return printChat(chat) + "\n";
}
