/**
 * Where in time `llm prov`'s peak memory is (issue 16): builds the report of
 * a bench store in a Bun child with the binary's JavaScriptCore options
 * (`src/cli/respawn.ts`), optionally renders the tree, and samples the
 * child's resident size every 50 ms from outside (`/proc/<pid>/status`),
 * without forcing any collection. Prints, per stage of the report, the
 * resident size when it ended and the highest sample since the previous
 * stage ended, then the peak (`VmHWM`).
 *
 *   tools/deno run -A bench/prov_timeline.ts bench/out/prov-10 [--tree] [--json]
 *
 * Unlike `bench/prov_stages.ts` (live data per stage, after forced
 * collections), this shows the garbage too: the peak is live data plus what
 * waits to be collected at the worst moment. One run varies by ±15 MB at
 * 2 GB (when the collector happens to run): compare several.
 */
import { spawn } from "node:child_process";
import { openSync, readFileSync, writeSync } from "node:fs";
import { join, resolve } from "node:path";
import { PROV_JSC_OPTIONS } from "../src/cli/respawn.ts";

const HERE = resolve(new URL(".", import.meta.url).pathname);
const args = process.argv.slice(2);

const views = args.filter((a) => a === "--tree" || a === "--json");
if (args[0] === "--child") {
  await child(args[1]!, views.includes("--tree"), views.includes("--json"));
} else await parent(resolve(args[0] ?? "bench/out/prov-1"), views);

/** Builds the report (and the tree), printing each stage's end on stderr. */
async function child(dir: string, tree: boolean, json: boolean): Promise<void> {
  const { provenanceReport } = await import("../src/provenance/report.ts");
  const { treeLines } = await import("../src/provenance/render_tree.ts");
  const t0 = performance.now();
  const mark = (stage: string) =>
    process.stderr.write(`stage ${stage} ${(performance.now() - t0).toFixed(0)}\n`);
  const report = provenanceReport(join(dir, "session.chat"), {
    jobRoots: [join(dir, "jobs")],
    onPhase: mark,
  });
  mark("report");
  if (tree) {
    let chars = 0;
    for (const line of treeLines(report, { component: false, long: false })) chars += line.length;
    mark(`tree (${chars} characters)`);
  }
  if (json) {
    // as `llm prov --json` writes it (src/cli/llm_prov.ts), into /dev/null
    const { provenanceJsonChunks } = await import("../src/provenance/json.ts");
    const { collectIfGrown } = await import("../src/util/gc.ts");
    const fd = openSync("/dev/null", "w");
    let written = 0;
    let list = "nodes";
    for (const chunk of provenanceJsonChunks(report)) {
      for (const next of ["edges", "events", "totals"]) {
        if (chunk.includes(`\n"${next}":`)) {
          mark(`--json ${list}`);
          list = next;
        }
      }
      writeSync(fd, chunk);
      if (++written % 64 === 0) collectIfGrown();
    }
    mark(`--json ${list}`);
  }
}

function statusKb(pid: number, key: string): number {
  try {
    const text = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(new RegExp(`${key}:\\s*(\\d+)`).exec(text)?.[1] ?? 0);
  } catch {
    return 0; // gone
  }
}

async function parent(dir: string, views: string[]): Promise<void> {
  const bun = join(HERE, "../tools/node_modules/.bin/bun");
  const p = spawn(bun, [
    join(HERE, "prov_timeline.ts"),
    "--child",
    dir,
    ...views,
  ], {
    stdio: ["ignore", "inherit", "pipe"],
    env: {
      ...process.env,
      ...PROV_JSC_OPTIONS,
    },
  });
  const pid = p.pid!;
  let high = 0; // highest sample since the last stage ended
  let peak = 0;
  const rows: string[] = [];
  const sampler = setInterval(() => {
    const kb = statusKb(pid, "VmRSS");
    high = Math.max(high, kb);
    peak = Math.max(peak, statusKb(pid, "VmHWM"));
  }, 50);
  let pending = "";
  p.stderr!.setEncoding("utf8");
  p.stderr!.on("data", (chunk: string) => {
    pending += chunk;
    for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      const m = /^stage (.+) (\d+)$/.exec(line);
      if (m === null) {
        process.stderr.write(line + "\n");
        continue;
      }
      const now = statusKb(pid, "VmRSS");
      const mb = (kb: number) => (kb / 1024).toFixed(0);
      rows.push(
        `| ${m[1]} | ${(Number(m[2]) / 1000).toFixed(1)} | ${mb(now)} | ${
          mb(Math.max(high, now))
        } |`,
      );
      high = 0;
    }
  });
  const code = await new Promise<number>((r) => p.on("close", (c) => r(c ?? 1)));
  clearInterval(sampler);
  console.log(`store ${dir} (report${views.map((v) => ", " + v.slice(2)).join("")})`);
  console.log("| stage ended | s | RSS MB then | highest RSS MB since the previous stage |");
  console.log("|---|--:|--:|--:|");
  for (const row of rows) console.log(row);
  console.log(`\npeak (VmHWM, last sample) ${(peak / 1024).toFixed(0)} MB`);
  if (code !== 0) process.exit(code);
}
