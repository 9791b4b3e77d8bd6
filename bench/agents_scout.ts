/**
 * scout-ai side of `bench/agents_bench.ts` (run as its own process):
 * `agents_scout.ts URL DIR [--no-cache]`. Agents are directories under
 * `DIR/home/Agent/` (`socialize: true` in Root's and SpecC's start chats),
 * the endpoint a loopback one. Each round appends the user turn to Root's
 * live chat, runs `agentChat` and saves the conversation (`DIR/root.chat`,
 * atomically, as `agent ask -c F -o F` does); after the last round the
 * society logs are written as `logAgent` lays them out
 * (`log/society/<Agent>/<conversation>.chat`, nested under
 * `…/<conversation>/society/…`). Prints a {@link ChildReport} JSON line.
 *
 * @module
 */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { agentChat, agentCurrent, agentLogFiles, loadAgent } from "../src/agent/mod.ts";
import { parse } from "../src/chat/parse.ts";
import { print } from "../src/chat/print.ts";
import { writeFileAtomic } from "../src/util/fs.ts";
import {
  childReport,
  NESTED,
  question,
  ROUNDS,
  SPECIALISTS,
  systemPrompt,
} from "./agents_scenario.ts";

const args = process.argv.slice(2); // node APIs only: it runs under Deno and under Bun
const [url, dir] = args;
if (!url || !dir) throw new Error("usage: agents_scout.ts URL DIR [--no-cache]");
const home = join(dir, "home");
const social = new Set(["Root", NESTED.caller]);
for (const name of ["Root", ...SPECIALISTS, NESTED.callee]) {
  await mkdir(join(home, "Agent", name), { recursive: true });
  const extra = social.has(name) ? "\nsocialize: true\n" : "";
  await writeFile(
    join(home, "Agent", name, "start_chat"),
    `system:\n\n${systemPrompt(name)}\n${extra}`,
  );
}
await mkdir(join(home, "etc", "AI"), { recursive: true });
await writeFile(
  join(home, "etc", "AI", "loopback.yaml"),
  `backend: openai\nurl: ${url}/v1\nmodel: scripted\nkey: loopback-needs-no-key\n`,
);
// A user's agents and endpoint exist before their session; a file changed in
// the last 2 s is read again on every inference (RACY_MS, config/endpoints.ts),
// which a setup written a moment ago would have every one of its inferences do.
await new Promise((r) => setTimeout(r, 2_100));
const env = { ...process.env, SCOUT_HOME: home, ASK_ENDPOINT: "loopback" };
const root = await loadAgent("Root", {
  runtime: {
    env,
    cwd: dir,
    ...(args.includes("--no-cache") ? { cache: false } : {}),
  },
});

const chatFile = join(dir, "root.chat");
const roundsMs: number[] = [];
let cpu0 = process.cpuUsage(); // reset after the cold round 1
for (let n = 1; n <= ROUNDS; n++) {
  if (n === 2) cpu0 = process.cpuUsage();
  const t0 = performance.now();
  agentCurrent(root).push({ role: "user", content: question(n) });
  await agentChat(root);
  await writeFileAtomic(chatFile, print(agentCurrent(root)));
  roundsMs.push(performance.now() - t0);
}
const cpu = process.cpuUsage(cpu0);
const t0 = performance.now();
let files = 0;
for (const [rel, messages] of agentLogFiles(root)) {
  if (rel === "log/agent.chat") continue; // that is root.chat
  await mkdir(join(dir, rel, ".."), { recursive: true });
  await writeFileAtomic(join(dir, rel), print(messages));
  files++;
}
const saveMs = performance.now() - t0;

async function countMessages(path: string): Promise<number> {
  // a printed chat starts with a blank line, which parses as an empty user message
  const msgs = parse(await readFile(path, "utf8"));
  return msgs.filter((m) => !(m.role === "user" && String(m.content).trim() === "")).length;
}
async function walk(d: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(d, { withFileTypes: true })) {
    if (e.isDirectory()) out.push(...await walk(join(d, e.name)));
    else if (e.name.endsWith(".chat")) out.push(join(d, e.name));
  }
  return out;
}
let specialists = 0;
const logs = await walk(join(dir, "log"));
for (const f of logs) specialists += await countMessages(f);
const saved = { chat: await countMessages(chatFile), specialists, files: logs.length + 1 };
const report = childReport("scout-ai", roundsMs, cpu, saveMs, saved);
if (files !== logs.length) throw new Error(`wrote ${files} society logs, found ${logs.length}`);
console.log(JSON.stringify(report));
