import v8 from "node:v8";
import { join, resolve } from "node:path";
import { provenanceReport } from "../src/provenance/report.ts";
const dir = resolve(Deno.args[0] ?? "bench/out/prov-1");
const want = new Set((Deno.args[1] ?? "walk,nodes").split(","));
const report: any = provenanceReport(join(dir, "session.chat"), {
  jobRoots: [join(dir, "jobs")], helperThreshold: Infinity,
  onPhase: (s) => { if (want.has(s)) console.log(v8.writeHeapSnapshot(`/tmp/probe/${s}.heapsnapshot`)); },
});
console.log(report.nodes.length);
