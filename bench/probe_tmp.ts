import { join, resolve } from "node:path";
import { provenanceReport } from "../src/provenance/report.ts";
import { heapStats } from "bun:jsc";
const dir = resolve(process.argv[2] ?? "bench/out/prov-10");
const mb = (n: number) => (n / 1048576).toFixed(0);
const t0 = performance.now();
const show = (stage: string) => {
  const before = process.memoryUsage.rss();
  const h1 = heapStats();
  (globalThis as any).Bun.gc(true);
  const h = heapStats();
  console.log(`${stage} t=${((performance.now()-t0)/1000).toFixed(1)} rss=${mb(before)} heap=${mb(h1.heapSize)} ext=${mb(h1.extraMemorySize)} | after gc rss=${mb(process.memoryUsage.rss())} heap=${mb(h.heapSize)} ext=${mb(h.extraMemorySize)} objs=${h.objectCount}`);
};
const report: any = provenanceReport(join(dir, "session.chat"), { jobRoots: [join(dir, "jobs")], onPhase: show });
show("returned");
const h = heapStats();
const top = Object.entries(h.objectTypeCounts).sort((a: any, b: any) => b[1] - a[1]).slice(0, 25);
console.log(top.map(([k, v]) => `${k}:${v}`).join(" "));
console.log(report.nodes.length);
