/**
 * `deno task bench`: the provenance walk on a small generated store (scale
 * 0.05: ~100 jobs, ~500 chats, ~10 MB). Figures for the 2,000-job / 200 MB
 * store, against `cat`, come from `bench/prov_measure.ts` (whole-process wall
 * time and peak RSS of the binary).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateStore } from "./prov_store.ts";
import { provenanceReport } from "../src/provenance/report.ts";
import { renderTree } from "../src/provenance/render_tree.ts";
import { provenanceJsonChunks } from "../src/provenance/json.ts";

const dir = mkdtempSync(join(tmpdir(), "scout-prov-bench-"));
const store = await generateStore(dir, { scale: 0.05, seed: 7 });
const opts = { cwd: dir, jobRoots: [store.jobsDir] };

Deno.bench(
  `prov tree (${store.jobs} jobs, ${store.chats} chats, ${(store.bytes / 1e6).toFixed(1)} MB)`,
  () => {
    renderTree(provenanceReport(store.root, opts));
  },
);

Deno.bench(`prov --json (${store.jobs} jobs, ${store.chats} chats)`, () => {
  let n = 0;
  for (const chunk of provenanceJsonChunks(provenanceReport(store.root, opts))) n += chunk.length;
  if (n === 0) throw new Error("empty document");
});

globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
