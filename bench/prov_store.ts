/**
 * Generates a realistic provenance store for benchmarks (issue 5): at scale 1,
 * 2,000 jobs and about 10,000 chat files, about 200 MB.
 *
 *   tools/deno run -A bench/prov_store.ts bench/out/prov-1 [--scale 1] [--seed 1]
 *
 * Layout: `session.chat` (the root: an analysis session with one `meta: job=`
 * projection per pipeline) and `jobs/<Workflow>/<task>/<name>`. Jobs come in
 * 99 pipelines of 20 (6 data jobs, 14 agent chat tasks) over a dependency DAG,
 * plus 20 shared reference jobs the pipelines depend on. Agent jobs keep
 * `log/agent.chat` (tool calls with outputs of 0.5–12 KB, delegations whose
 * `agent_meta` receipts copy the specialist's metas and sometimes name
 * another agent job) and society logs; their result files are projected
 * chats. About 10% of specialist logs are legacy (metas without
 * `inference_id`). Deterministic for a given seed. Written with the project's
 * chat printer and job-store `.info` writer.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { print } from "../src/chat/print.ts";
import { project } from "../src/chat/project.ts";
import type { Message } from "../src/chat/types.ts";
import { writeJobInfo } from "../src/workflow/info.ts";
import { prng as rng } from "./prng.ts";

/** What was generated. */
export interface StoreStats {
  /** Root chat. */
  root: string;
  /** Jobs root. */
  jobsDir: string;
  /** Number of jobs. */
  jobs: number;
  /** Number of chat files (logs, chat results, the root). */
  chats: number;
  /** Number of files of any kind. */
  files: number;
  /** Total bytes. */
  bytes: number;
}

const WORDS = (
  "the of and to in is for that on with as this by be are from at or an it not data value " +
  "sample gene expression model result table file path row column count mean median error " +
  "analysis filter join merge plot figure score rank cluster batch run job task step agent " +
  "review plan check fix test pass fail warning token prompt cache reason total session"
).split(" ");

/**
 * A deterministic store generator.
 *
 * @param dir target directory (created)
 * @param o scale (1 → 2,000 jobs / 10,000 chats / ~200 MB) and seed
 * @returns what was written
 */
export async function generateStore(
  dir: string,
  o: { scale?: number; seed?: number } = {},
): Promise<StoreStats> {
  const scale = o.scale ?? 1;
  const rand = rng(o.seed ?? 1);
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  // A pool of text to slice tool outputs and answers from.
  let pool = "";
  while (pool.length < 1 << 20) {
    const line: string[] = [];
    for (let i = int(4, 14); i > 0; i--) line.push(pick(WORDS));
    pool += line.join(" ") + (rand() < 0.3 ? "\t" + int(0, 99999) : "") + "\n";
  }
  const text = (n: number) => {
    const at = int(0, pool.length - n - 1);
    return pool.slice(at, at + n);
  };
  let uuidN = 0;
  const uuid = () => {
    uuidN++;
    const h = (n: number) => Math.floor(rand() * 16 ** n).toString(16).padStart(n, "0");
    return `${h(8)}-${h(4)}-4${h(3)}-a${h(3)}-${h(8)}${
      (uuidN % 65536).toString(16).padStart(4, "0")
    }`;
  };
  const jobsDir = join(dir, "jobs");
  const stats: StoreStats = {
    root: join(dir, "session.chat"),
    jobsDir,
    jobs: 0,
    chats: 0,
    files: 0,
    bytes: 0,
  };
  const put = (path: string, data: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, data);
    stats.files++;
    stats.bytes += Buffer.byteLength(data);
  };
  const chatFile = (path: string, chat: Message[]) => {
    put(path, print(chat) + "\n");
    stats.chats++;
  };

  /** One inference's meta, Scout style (`inference.md` §4.1), optionally legacy. */
  const running = { pt: 0, ct: 0, tt: 0 };
  const metaLine = (legacy: boolean) => {
    const pt = int(800, 24000);
    const ct = int(40, 1800);
    const cct = rand() < 0.6 ? int(0, pt) : 0;
    const rt = rand() < 0.2 ? int(0, ct) : 0;
    running.pt += pt;
    running.ct += ct;
    running.tt += pt + ct;
    const ids = legacy
      ? ""
      : ` inference_id=${uuid()} provider_response_id=resp_${uuid().slice(0, 20)}`;
    return `pt=${pt} ct=${ct} tt=${
      pt + ct
    } cct=${cct} rt=${rt}${ids} pt_c=${running.pt} ct_c=${running.ct} ` +
      `tt_c=${running.tt} cct_c=0 cwt_c=0 rt_c=0 pt_s=${running.pt} tt_s=${running.tt} ` +
      `timestamp=2026-11-0${int(1, 9)}T1${int(0, 9)}:${int(10, 59)}:${int(10, 59)}.${
        int(100, 999)
      }Z` +
      (rand() < 0.3 ? ` reas="${text(int(40, 160)).replace(/\s+/g, " ").trim()}"` : "");
  };

  /** An agent conversation: `segments` inferences with tool calls; returns its metas. */
  const conversation = (
    who: string,
    segments: number,
    legacy: boolean,
    delegate?: (k: number) => { name: string; metas: string[]; job?: string } | null,
  ): { chat: Message[]; metas: string[] } => {
    running.pt = running.ct = running.tt = 0;
    const chat: Message[] = [
      { role: "system", content: `You are ${who}. ${text(int(200, 600))}` },
      { role: "user", content: text(int(100, 400)) },
    ];
    const metas: string[] = [];
    for (let k = 0; k < segments; k++) {
      const m = metaLine(legacy);
      metas.push(m);
      chat.push({ role: "meta", content: m });
      const id = `call_${uuid().slice(0, 12)}`;
      const sub = delegate?.(k) ?? null;
      if (sub !== null) {
        chat.push({
          role: "function_call",
          content: JSON.stringify({
            name: "ask",
            arguments: { agent: sub.name, prompt: text(80) },
            id,
          }),
        });
        const agentMeta = sub.metas.map((content) => ({ role: "meta", content }));
        if (sub.job) agentMeta.push({ role: "meta", content: `job=${sub.job}` });
        chat.push({
          role: "function_call_output",
          content: JSON.stringify({
            name: "ask",
            content: text(int(200, 1500)),
            id,
            agent_meta: agentMeta,
            start_timestamp: "2026-11-01T10:00:00.000Z",
            timestamp: "2026-11-01T10:00:09.000Z",
          }),
        });
      } else {
        const tool = pick(["read", "bash", "grep", "python"]);
        chat.push({
          role: "function_call",
          content: JSON.stringify({ name: tool, arguments: { cmd: text(60).trim() }, id }),
        });
        const size = Math.round(500 * Math.pow(12000 / 500, rand()));
        chat.push({
          role: "function_call_output",
          content: JSON.stringify({ name: tool, content: text(size), id }),
        });
      }
      chat.push({ role: "assistant", content: text(int(100, 700)) });
    }
    return { chat, metas };
  };

  const pipelines = Math.max(1, Math.round(99 * scale)); // 99 × 20 + 20 shared = 2,000 jobs
  const sharedCount = Math.max(1, Math.round(20 * scale));
  const infoOf = (wf: string, task: string, type: string, deps: string[]) => ({
    status: "done",
    issued: "2026-11-01 10:00:00 +0000",
    pid: int(1000, 99999),
    pid_hostname: "node1",
    task_name: task,
    workflow: wf,
    provided_inputs: { sample: `S${int(1, 999)}` },
    non_default_inputs: ["sample"],
    inputs: [`S${int(1, 999)}`, int(1, 10)],
    input_names: ["sample", "replicates"],
    type,
    dependencies: deps,
    start: "2026-11-01 10:00:01 +0000",
    end: "2026-11-01 10:04:00 +0000",
    time_elapsed: rand() * 240,
    total_time_elapsed: rand() * 241,
  });
  const writeInfo = async (path: string, info: Record<string, unknown>) => {
    await writeJobInfo(path, info);
    stats.files++;
    stats.bytes += Buffer.byteLength(JSON.stringify(info));
  };

  const shared: string[] = [];
  for (let i = 0; i < sharedCount; i++) {
    const path = join(jobsDir, "Reference", "load", `Default_ref${String(i).padStart(5, "0")}`);
    put(path, text(int(2000, 6000)));
    await writeInfo(path, infoOf("Reference", "load", "text", []));
    shared.push(path);
    stats.jobs++;
  }

  const finals: string[] = [];
  const perPipeline = 20;

  for (let p = 0; p < pipelines; p++) {
    const wf = `Study${String(p).padStart(3, "0")}`;
    const paths: string[] = [];
    const consumed = new Set<string>();
    for (let j = 0; j < perPipeline; j++) {
      const agent = j >= 6;
      const task = agent
        ? pick(["ask", "review", "plan", "summarize"])
        : pick(["load", "filter", "join"]);
      const name = `Default_${uuid().replace(/-/g, "").slice(0, 32)}${agent ? ".chat" : ""}`;
      const path = join(jobsDir, wf, task, name);
      const deps = new Set<string>();
      if (j === 0) deps.add(pick(shared));
      for (let d = int(j === 0 ? 0 : 1, Math.min(3, j)); d > 0; d--) {
        deps.add(paths[int(0, j - 1)]!);
      }
      // the last job consumes every job nothing else consumed: the whole pipeline is reachable
      if (j === perPipeline - 1) { for (const q of paths) if (!consumed.has(q)) deps.add(q); }
      for (const q of deps) consumed.add(q);
      if (!agent) {
        put(path, text(int(1000, 8000)));
        await writeInfo(path, infoOf(wf, task, "tsv", [...deps]));
      } else {
        const short = `${wf}/${task}/${name}`;
        const specialists: { name: string; metas: string[] }[] = [];
        // agent.chat + 5 or 6 specialists + the result chat: ~7.2 chats per agent job
        const count = rand() < 0.2 ? 6 : 5;
        for (let s = 1; s <= count; s++) {
          const who = pick(["Critic", "Coder", "Statistician", "Librarian", "Checker"]);
          const conv = conversation(who, int(2, 7), rand() < 0.1);
          const file = s % 3 === 0
            ? `round-${s}/society/${who}/c${s}.chat`
            : `society/${who}/c${s}.chat`;
          chatFile(join(`${path}.files`, "log", file), conv.chat);
          specialists.push({ name: who, metas: conv.metas });
        }
        // The main agent delegates to its specialists (receipts copy their metas) and,
        // sometimes, to another agent job of the pipeline (an agent_job edge).
        const earlierAgents = paths.slice(6);
        const main = conversation(`the ${task} agent`, int(6, 12), false, (k) => {
          if (k < specialists.length && rand() < 0.7) return specialists[k]!;
          if (earlierAgents.length > 0 && rand() < 0.15) {
            const other = pick(earlierAgents);
            const rel = other.slice(jobsDir.length + 1);
            return { name: "Worker", metas: [metaLine(false)], job: rel };
          }
          return null;
        });
        chatFile(join(`${path}.files`, "log", "agent.chat"), main.chat);
        const answer = project(short, [{ role: "assistant", content: text(int(300, 1500)) }]);
        chatFile(path, answer);
        await writeInfo(path, infoOf(wf, task, "chat", [...deps]));
      }
      paths.push(path);
      stats.jobs++;
    }
    finals.push(`${wf}/${paths[perPipeline - 1]!.split("/").slice(-2).join("/")}`);
  }

  const session: Message[] = [{ role: "user", content: "Run every study and summarize" }];
  for (const f of finals) {
    session.push({ role: "meta", content: `job=${f}` });
    session.push({ role: "assistant", content: text(int(200, 800)) });
  }
  const top = conversation("the lead analyst", 8, false);
  session.push(...top.chat.slice(1));
  chatFile(stats.root, session);
  return stats;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const dir = args.find((a) => !a.startsWith("--")) ?? "bench/out/prov-1";
  const opt = (name: string, dflt: number) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? Number(args[i + 1]) : dflt;
  };
  const t0 = performance.now();
  const stats = await generateStore(dir, { scale: opt("scale", 1), seed: opt("seed", 1) });
  writeFileSync(join(dir, "store.json"), JSON.stringify(stats, null, 2) + "\n");
  console.log(
    `${dir}: ${stats.jobs} jobs, ${stats.chats} chats, ${stats.files} files, ` +
      `${(stats.bytes / 1e6).toFixed(1)} MB in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
}
