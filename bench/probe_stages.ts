import { readdirSync, statSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadRawSync } from "../src/chat/load.ts";
import { parse } from "../src/chat/parse.ts";
import { agentMetaEvidence } from "../src/chat/receipts.ts";
import { chatFactsOf, factsToText, factsFromText } from "../src/provenance/chat_facts.ts";
const dir = process.argv[2]!;
const files: string[] = [];
const walk = (d: string) => { for (const e of readdirSync(d, { withFileTypes: true })) { const p = join(d, e.name); if (e.isDirectory()) walk(p); else if (e.name.endsWith(".chat")) files.push(p); } };
walk(dir);
let bytes = 0;
const t: Record<string, number> = { read: 0, parse: 0, receipts: 0, facts: 0, toText: 0, fromText: 0 };
let now = performance.now();
const lap = (k: string) => { const n = performance.now(); t[k]! += n - now; now = n; };
for (const f of files) {
  now = performance.now();
  const text = readFileSync(f, "utf8"); bytes += text.length; lap("read");
  const messages = parse(text); lap("parse");
  const problems: any[] = [];
  const receipts = agentMetaEvidence(messages, { source: f, warnings: problems }); lap("receipts");
  const facts = chatFactsOf({ path: f, messages, receipts, receiptProblems: problems }, { detach: false }); lap("facts");
  const json = factsToText(facts); lap("toText");
  factsFromText(f, json); lap("fromText");
}
console.log(files.length, "chats", (bytes / 1e6).toFixed(0), "MB", Object.entries(t).map(([k, v]) => `${k} ${v.toFixed(0)} ms`).join(", "));
