/**
 * A/B of scout-ai builds on the agents bench's scenario: each variant is a
 * checkout and, optionally, environment variables; its `bench/agents_scout.ts`
 * runs (cache on) against one loopback provider server, the variants' order
 * rotated each iteration, so each iteration compares runs made moments apart
 * on the same machine. Prints each iteration's figures, then for every
 * variant the medians, and against the first variant the median of the
 * paired differences (overhead per round, per delegated call, CPU per round,
 * as `agents_bench.ts` defines them) with how many iterations it was better.
 *
 *   git worktree add /tmp/base <commit> && ln -s "$PWD/node_modules" /tmp/base/
 *   tools/deno run -A bench/agents_ab.ts --runtime bun --iterations 10 base=/tmp/base new=.
 *   tools/deno run -A bench/agents_ab.ts new=. nocache=.,SCOUT_X=1   # NAME=DIR[,VAR:VALUE…]
 *
 * A paired difference of one iteration varies by ±1–5 ms a round on a shared
 * machine: take ten iterations or more, and read the count of better ones.
 *
 * @module
 */
import { join, resolve } from "node:path";
import { startProviderServer } from "../tests/support/provider_server.ts";
import { overheads } from "./agents_bench.ts";
import { type ChildReport, reply, ROUNDS } from "./agents_scenario.ts";
import { median } from "./stats.ts";

const TOOLS = join(import.meta.dirname!, "..", "tools", "node_modules", ".bin");

interface Variant {
  name: string;
  dir: string;
  env: Record<string, string>;
}

/** Parses `NAME=DIR[,VAR:VALUE…]`. */
function variant(spec: string): Variant {
  const [name, rest] = spec.split(/=(.*)/s);
  if (!name || !rest) throw new Error(`expected NAME=DIR[,VAR:VALUE…], got "${spec}"`);
  const [dir, ...vars] = rest.split(",");
  const env = Object.fromEntries(vars.map((v) => v.split(/:(.*)/s).slice(0, 2)));
  return { name, dir: resolve(dir!), env };
}

/** One run of a variant's child: its report and the figures of rounds 2–20. */
async function run(v: Variant, runtime: string, url: string, tmp: string) {
  const dir = await Deno.makeTempDir({ prefix: "scout-agents-ab-", dir: tmp });
  const args = runtime === "bun" ? ["bench/agents_scout.ts", url, dir] : [
    "run",
    "-q",
    "-A",
    `--config=${join(v.dir, "deno.json")}`,
    "bench/agents_scout.ts",
    url,
    dir,
  ];
  const out = await new Deno.Command(join(TOOLS, runtime), {
    args,
    cwd: v.dir,
    env: v.env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (out.code !== 0) throw new Error(`${v.name}: ${new TextDecoder().decode(out.stderr)}`);
  return JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!) as ChildReport;
}

if (import.meta.main) {
  const flag = (name: string, dflt: string) => {
    const i = Deno.args.indexOf(name);
    return i >= 0 ? Deno.args.splice(i, 2)[1]! : dflt;
  };
  const runtime = flag("--runtime", "bun");
  const iterations = Number(flag("--iterations", "10"));
  const variants = Deno.args.map(variant);
  if (variants.length < 2) throw new Error("give two variants or more: NAME=DIR[,VAR:VALUE…]");
  await using server = await startProviderServer({ fallback: reply });
  // run directories are removed at the end (see agents_bench.ts: a removal slows the next creates)
  const tmp = await Deno.makeTempDir({ prefix: "scout-agents-ab-" });
  const figures = new Map(
    variants.map((
      v,
    ) => [v.name, {
      round: [] as number[],
      call: [] as number[],
      cpu: [] as number[],
      sys: [] as number[],
    }]),
  );
  try {
    for (let i = 0; i < iterations; i++) {
      for (let k = 0; k < variants.length; k++) {
        const v = variants[(k + i) % variants.length]!;
        const from = server.requests.length;
        const report = await run(v, runtime, server.url, tmp);
        const o = overheads(report, server.requests.slice(from), "arrivedAt");
        const f = figures.get(v.name)!;
        f.round.push(median(o.perRound.slice(1)));
        f.call.push(median(o.perCall.slice(1)));
        f.cpu.push(report.cpuMs / (ROUNDS - 1));
        f.sys.push((report.cpuSysMs ?? NaN) / (ROUNDS - 1)); // NaN: a checkout from before stop 31
      }
      console.log(
        `iteration ${i + 1}: ` + variants.map((v) => {
          const f = figures.get(v.name)!;
          return `${v.name} ${f.round.at(-1)!.toFixed(2)} ms/round, ${
            f.call.at(-1)!.toFixed(2)
          } ms/call`;
        }).join("; "),
      );
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
  const base = figures.get(variants[0]!.name)!;
  for (const v of variants) {
    const f = figures.get(v.name)!;
    const diff = (xs: number[], ys: number[]) => xs.map((x, i) => x - ys[i]!);
    const dr = diff(f.round, base.round);
    const line =
      `${v.name}: ${median(f.round).toFixed(2)} ms/round, ${median(f.call).toFixed(2)} ms/call, ` +
      `${median(f.cpu).toFixed(2)} ms CPU/round (system ${median(f.sys).toFixed(2)})`;
    if (v === variants[0]) console.log(line);
    else {
      console.log(
        `${line}; vs ${variants[0]!.name}: ${median(dr).toFixed(2)} ms/round ` +
          `(better in ${dr.filter((d) => d < 0).length}/${dr.length}), ` +
          `${median(diff(f.call, base.call)).toFixed(3)} ms/call, ` +
          `${median(diff(f.cpu, base.cpu)).toFixed(2)} ms CPU/round ` +
          `(system ${median(diff(f.sys, base.sys)).toFixed(2)})`,
      );
    }
  }
}
