/**
 * Where `llm prov`'s peak memory is, stage by stage, in the binary's engine
 * (issue 16): builds the report of a bench store as the CLI does (helper
 * thread included) and, at the end of each stage, prints the resident size,
 * then forces a full collection and prints what is left — the resident
 * size and JavaScriptCore's heap and extra (typed arrays, string buffers)
 * sizes. The gap between the two resident sizes is garbage; what is left is
 * the stage's live data. Run it with Bun, with the JSC options the binary's
 * tuned child sets (`src/cli/respawn.ts`):
 *
 *   BUN_JSC_useFTLJIT=0 BUN_JSC_useConcurrentGC=0 BUN_JSC_forceRAMSize=201326592 BUN_JSC_sweepSynchronously=1 \
 *     tools/node_modules/.bin/bun bench/prov_stages.ts bench/out/prov-10
 *
 * (`bench/prov_memory.ts` is the V8 counterpart, by part of the report.)
 * The collections it forces change the run's own peak: measure peaks with
 * `bench/prov_measure.ts`.
 */
import { join, resolve } from "node:path";
import { provenanceReport } from "../src/provenance/report.ts";

type HeapStats = { heapSize: number; extraMemorySize: number; objectCount: number };
const bun = (globalThis as { Bun?: { gc(full: boolean): void } }).Bun;
if (bun === undefined) {
  throw new Error("run with Bun: tools/node_modules/.bin/bun bench/prov_stages.ts");
}
const jscModule = "bun:jsc"; // a variable: Deno's checker does not resolve it
const { heapStats } = (await import(jscModule)) as { heapStats(): HeapStats };

const dir = resolve(process.argv[2] ?? "bench/out/prov-1");
const mb = (n: number) => (n / 1048576).toFixed(0);
const t0 = performance.now();
console.log(`store ${dir}`);
console.log("| stage ended | s | RSS MB | after a full collection: RSS | heap | extra | objects |");
console.log("|---|--:|--:|--:|--:|--:|--:|");
const show = (stage: string) => {
  const before = process.memoryUsage.rss();
  bun.gc(true);
  const h = heapStats();
  console.log(
    `| ${stage} | ${((performance.now() - t0) / 1000).toFixed(1)} | ${mb(before)} | ` +
      `${mb(process.memoryUsage.rss())} | ${mb(h.heapSize)} | ${
        mb(h.extraMemorySize)
      } | ${h.objectCount} |`,
  );
};
const report = provenanceReport(join(dir, "session.chat"), {
  jobRoots: [join(dir, "jobs")],
  onPhase: show,
});
show("report returned");
console.log(`\n${report.nodes.length} nodes, ${report.edges.length} edges`);
