/**
 * MCP per-call overhead (issue 12 target: ≤ 2 ms per MCP call on loopback).
 *
 * The same function — Baking's `whisk` (an exec export: runs in memory, no job
 * on disk) — is called N times:
 * 1. as a workflow task tool in this process (`taskToolFunction`, the path a
 *    `tool: Baking whisk` line takes);
 * 2. as an MCP tool through our client session (`McpSession.callTool`) to a
 *    warm `scout-ai workflow mcp Baking whisk` server over stdio (from source,
 *    and with `--binary` also `dist/scout-ai`);
 * 3. the SDK test server's `echo` over stdio (transport floor, no workflow).
 * The MCP overhead is (2) − (1). Servers are started and listed before timing.
 *
 *   tools/deno run -A bench/mcp_bench.ts [--calls 2000] [--binary] [--json]
 *
 * `tools/deno task bench` runs a short Deno.bench case (start + 200 calls).
 */
import { join } from "node:path";
import { existsSync } from "node:fs";
import { loadWorkflow } from "../src/workflow/load.ts";
import { taskToolFunction } from "../src/tools/workflow.ts";
import { McpSession } from "../src/tools/mcp/session.ts";
import { DENO, ROOT, SCOUT_SOURCE_ARGS } from "../tests/support/cli.ts";

const BAKING = join(ROOT, "fixtures/workflows/Baking");

function stats(ms: number[]) {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return {
    mean: s.reduce((a, b) => a + b, 0) / s.length,
    p50: at(0.5),
    p95: at(0.95),
    p99: at(0.99),
  };
}

async function time(n: number, call: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 50; i++) await call(i); // warm-up
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await call(i);
    out.push(performance.now() - t0);
  }
  return out;
}

async function mcpTimes(argv: string[], tool: string, n: number, home: string) {
  const session = new McpSession({ kind: "stdio", argv, label: argv.join(" "), names: [] }, {
    env: { ...Deno.env.toObject(), SCOUT_HOME: home, NO_COLOR: "1" },
    cwd: ROOT,
  });
  try {
    await session.listTools();
    return await time(
      n,
      (i) =>
        session.callTool(
          tool,
          tool === "echo" ? { text: `x${i}` } : { eggs: i % 7, style: "soft" },
        ),
    );
  } finally {
    await session.close();
  }
}

/** Runs the comparison and returns per-call figures in ms. */
export async function measure(n: number, binary: boolean) {
  const home = await Deno.makeTempDir({ prefix: "scout-mcp-bench-" });
  try {
    const wf = await loadWorkflow(BAKING, { cwd: ROOT, env: { SCOUT_HOME: home } });
    const fn = taskToolFunction(wf, "whisk", { cwd: ROOT, env: { SCOUT_HOME: home } });
    const rows: Record<string, ReturnType<typeof stats>> = {};
    rows["workflow task in process (whisk)"] = stats(
      await time(
        n,
        (i) => Promise.resolve(fn("whisk", { eggs: i % 7, style: "soft" }, { id: "b" })),
      ),
    );
    rows["MCP stdio: workflow mcp Baking whisk (source)"] = stats(
      await mcpTimes(
        [DENO, ...SCOUT_SOURCE_ARGS, "workflow", "mcp", BAKING, "whisk"],
        "whisk",
        n,
        home,
      ),
    );
    const bin = join(ROOT, "dist/scout-ai");
    if (binary && existsSync(bin)) {
      rows["MCP stdio: workflow mcp Baking whisk (binary)"] = stats(
        await mcpTimes([bin, "workflow", "mcp", BAKING, "whisk"], "whisk", n, home),
      );
    }
    rows["MCP stdio: SDK test server echo"] = stats(
      await mcpTimes(
        [DENO, "run", "-A", join(ROOT, "tests/support/mcp_server.ts")],
        "echo",
        n,
        home,
      ),
    );
    return rows;
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

if (import.meta.main) {
  const i = Deno.args.indexOf("--calls");
  const n = i >= 0 ? Number(Deno.args[i + 1]) : 2000;
  const rows = await measure(n, Deno.args.includes("--binary"));
  if (Deno.args.includes("--json")) console.log(JSON.stringify({ calls: n, ms: rows }, null, 2));
  else {
    const f = (x: number) => x.toFixed(3);
    console.log(`| per call, ms (${n} calls) | mean | p50 | p95 | p99 |\n|---|---|---|---|---|`);
    for (const [k, v] of Object.entries(rows)) {
      console.log(`| ${k} | ${f(v.mean)} | ${f(v.p50)} | ${f(v.p95)} | ${f(v.p99)} |`);
    }
    const base = rows["workflow task in process (whisk)"]!.p50;
    const mcp = rows["MCP stdio: workflow mcp Baking whisk (source)"]!.p50;
    console.log(
      `\nMCP overhead per call (p50, source server): ${f(mcp - base)} ms (target ≤ 2 ms)`,
    );
  }
} else {
  Deno.bench({
    name: "mcp: start workflow mcp Baking + 200 whisk calls over stdio",
    n: 2,
    warmup: 0,
  }, async () => {
    await measure(200, false);
  });
}
