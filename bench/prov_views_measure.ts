/**
 * Issue 14's figures: `llm prov --by agent,model` and `--html` against the
 * plain tree on the 2,000-job / ~10,000-chat bench store (`bench/prov_store.ts`,
 * generated into `bench/out/prov-1` on first use), with the built binary.
 * Targets: each ≤ 1.2× the tree's time and ≤ 1.2× its peak RSS. Also prints
 * the page's size. Runs are interleaved (tree, by, html, tree…); times are
 * medians, RSS the maximum (`/usr/bin/time -f "%e %M"`).
 *
 *   tools/deno task build
 *   tools/deno run -A bench/prov_views_measure.ts [--runs 5]
 */
import { existsSync, statSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { generateStore } from "./prov_store.ts";

const ROOT = resolve(new URL("..", import.meta.url).pathname);
const args = process.argv.slice(2);
const runs = Number(args[args.indexOf("--runs") + 1] ?? 5) || 5;
const bin = join(ROOT, "dist/scout-ai");
if (!existsSync(bin)) throw new Error("build the binary first: tools/deno task build");
const dir = join(ROOT, "bench/out/prov-1");
const stats = await generateStore(dir, { scale: 1 });
const page = join(dir, "..", "prov-views.html");

const views: Record<string, string> = {
  tree: "",
  "--by agent,model": "--by agent,model",
  "--html": `--html ${page}`,
};

function timed(extra: string): { s: number; kb: number } {
  const cmd = `${bin} llm prov ${stats.root} --jobs-dir ${stats.jobsDir} ${extra} > /dev/null`;
  const r = spawnSync("/usr/bin/time", ["-f", "%e %M", "sh", "-c", cmd], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr}`);
  const [s, kb] = r.stderr.trim().split("\n").at(-1)!.split(" ").map(Number);
  return { s: s!, kb: kb! };
}

const got: Record<string, { s: number[]; kb: number }> = {};
for (const v of Object.keys(views)) got[v] = { s: [], kb: 0 };
timed(""); // warm the page cache
for (let i = 0; i < runs; i++) {
  for (const [v, extra] of Object.entries(views)) {
    const t = timed(extra);
    got[v]!.s.push(t.s);
    got[v]!.kb = Math.max(got[v]!.kb, t.kb);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const tree = got.tree!;
console.log(
  `store: ${stats.jobs} jobs, ${stats.chats} chats, ${
    (stats.bytes / 1e6).toFixed(0)
  } MB; ${runs} runs`,
);
console.log("| view | wall s (median) | × tree | peak RSS MB | × tree |");
console.log("|---|--:|--:|--:|--:|");
for (const [v, g] of Object.entries(got)) {
  console.log(
    `| ${v} | ${median(g.s).toFixed(2)} | ${(median(g.s) / median(tree.s)).toFixed(2)} | ${
      (g.kb / 1024).toFixed(0)
    } | ${(g.kb / tree.kb).toFixed(2)} |`,
  );
}
console.log(`page: ${(statSync(page).size / 1e6).toFixed(1)} MB (${page})`);
