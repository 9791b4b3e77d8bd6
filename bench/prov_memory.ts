/**
 * What holds `llm prov`'s memory (issue 16): builds the report of a bench
 * store in-process, on one thread, and prints the live heap (after a full
 * collection) at the end of each stage of the report, then what each part
 * of the finished report holds (dropped one by one). Run it on the code of
 * two commits to see what a change saved.
 *
 *   tools/deno run -A --v8-flags=--expose-gc bench/prov_memory.ts bench/out/prov-1
 *
 * Heap figures are V8's (`deno run`); the binary runs JavaScriptCore, whose
 * objects are of similar size. The binary's resident size adds the runtime
 * (~40 MB), typed arrays outside the heap, the helper thread, and garbage
 * between collections (`bench/prov_measure.ts` measures that).
 */
import { join, resolve } from "node:path";
import { provenanceReport } from "../src/provenance/report.ts";

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with --v8-flags=--expose-gc");
const dir = resolve(Deno.args[0] ?? "bench/out/prov-1");
const mb = (n: number) => (n / 1e6).toFixed(1);
const live = () => {
  gc();
  gc();
  const m = Deno.memoryUsage();
  return { heap: m.heapUsed, external: m.external };
};
const base = live();
console.log(`store ${dir}`);
console.log(`| stage ended | live heap MB | outside the heap MB (typed arrays, buffers) |`);
console.log(`|---|--:|--:|`);
const show = (stage: string) => {
  const m = live();
  console.log(`| ${stage} | ${mb(m.heap - base.heap)} | ${mb(m.external - base.external)} |`);
};
const t0 = performance.now();
// deno-lint-ignore no-explicit-any
const report: any = provenanceReport(join(dir, "session.chat"), {
  jobRoots: [join(dir, "jobs")],
  helperThreshold: Infinity, // one heap: a helper thread's would not be counted
  onPhase: show,
});
const seconds = (performance.now() - t0) / 1000;
show("report returned");
console.log(
  `\nnodes ${report.nodes.length}, edges ${report.edges.length}, display edges ${report.displayEdges.length}, ` +
    `events ${report.events.length} (built in ${seconds.toFixed(1)} s, measurements included)\n`,
);
console.log(`| part of the report | live heap MB |`);
console.log(`|---|--:|`);
let last = live().heap;
const drop = (name: string, f: () => void) => {
  f();
  const now = live().heap;
  console.log(`| ${name} | ${mb(last - now)} |`);
  last = now;
};
drop("events (typed columns, identity tables, chat store)", () => report.events = null);
drop("display edges", () => report.displayEdges = []);
drop("edges (with receipt details)", () => report.edges = []);
drop("warnings", () => report.warnings = []);
drop("nodes (ids, paths, labels, job summaries, token records)", () => report.nodes = []);
console.log(`| left | ${mb(last - base.heap)} |`);
