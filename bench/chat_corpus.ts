/**
 * A deterministic, realistic `.chat` corpus for the parse/print benchmarks:
 * prose, markdown, code fences with header-shaped lines inside, `<file>` xml
 * blocks, `[[ ]]` and command blocks, one-line tool calls with JSON, long
 * tool outputs, meta lines, `previous_response_id`s, escaped header lines,
 * unicode, and about one file in eight with CRLF line ends.
 *
 * Run directly to write the corpus to `bench/out/chat_corpus/` (git-ignored):
 * `tools/deno run -P=test bench/chat_corpus.ts [MEGABYTES]`.
 *
 * @module
 */

import { prng as rng } from "./prng.ts";

const WORDS = (
  "the of and to in is that for it as with was on be by this are from at or an have not " +
  "which but all were when there can more one also their has been its would other into " +
  "gene protein cell expression sample analysis model token context prompt workflow job " +
  "muffin tray oven recipe result value error file path chat agent tool call output " +
  "données análisis модель 模型 分析 résumé naïve coöperate Ünïcödé café 🧁 ✓ → ≥"
).split(" ");

const CODE = [
  "def main(argv):",
  "    user: str = argv[0]  # a header-shaped line inside a fence",
  "    for i, line in enumerate(open(path)):",
  "        if line.startswith('assistant:'):",
  "            print(f'{i}: {line!r}')",
  "    return 0",
  "",
  "class Store:",
  "    def get(self, key):",
  "        return self.data.get(key, None)",
  "const x = await fetch(url, { method: 'POST', body: JSON.stringify(payload) });",
  "SELECT name, count(*) FROM genes WHERE chr = 'X' GROUP BY name;",
];

interface Gen {
  r: () => number;
  pick<T>(xs: readonly T[]): T;
  int(lo: number, hi: number): number;
}

function gen(seed: number): Gen {
  const r = rng(seed);
  return {
    r,
    pick: (xs) => xs[Math.floor(r() * xs.length)]!,
    int: (lo, hi) => lo + Math.floor(r() * (hi - lo + 1)),
  };
}

function sentence(g: Gen): string {
  const n = g.int(6, 22);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(g.pick(WORDS));
  const s = words.join(" ");
  return s[0]!.toUpperCase() + s.slice(1) + g.pick([".", ".", ".", "?", "!", ":"]);
}

function paragraph(g: Gen): string {
  const n = g.int(1, 6);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(sentence(g));
  return out.join(" ");
}

function prose(g: Gen): string {
  const parts: string[] = [];
  const n = g.int(1, 4);
  for (let i = 0; i < n; i++) {
    const k = g.r();
    if (k < 0.1) parts.push(`## ${sentence(g)}`);
    else if (k < 0.2) {
      parts.push(Array.from({ length: g.int(2, 5) }, () => `- ${sentence(g)}`).join("\n"));
    } else if (k < 0.25) parts.push(`\\${g.pick(["user", "assistant", "note"])}: ${sentence(g)}`);
    else if (k < 0.28) parts.push(`Note: ${sentence(g)}`);
    else parts.push(paragraph(g));
  }
  return parts.join("\n\n");
}

function fence(g: Gen): string {
  const n = g.int(3, 25);
  const lines = Array.from({ length: n }, () => g.pick(CODE));
  return "```" + g.pick(["python", "ts", "sql", ""]) + "\n" + lines.join("\n") + "\n```";
}

function xmlFile(g: Gen): string {
  const name = `${g.pick(["report", "notes", "data", "main"])}.${g.pick(["md", "py", "tsv"])}`;
  const body = g.r() < 0.5 ? fence(g) : prose(g);
  return `<file name="${name}">\n${body}\nuser: a header-shaped line inside the element\n</file>`;
}

function cmdBlock(g: Gen): string {
  const cmd = g.pick(["ls -la", "git status", "cat notes.txt"]);
  const out = Array.from({ length: g.int(2, 8) }, () => sentence(g)).join("\n");
  return `shell:-- ${cmd} {{{\n${out}\nshell:-- ${cmd} }}}`;
}

function toolCall(g: Gen, id: number): string {
  const args = JSON.stringify({
    query: sentence(g),
    limit: g.int(1, 100),
    filters: { chr: g.pick(["X", "Y", "1"]), tags: [g.pick(WORDS), g.pick(WORDS)] },
  });
  const call = JSON.stringify({
    name: g.pick(["search", "bake", "lookup"]),
    arguments: args,
    id: `call_${id}`,
  });
  const rows = Array.from(
    { length: g.int(1, 30) },
    () => ({ name: g.pick(WORDS), text: sentence(g) }),
  );
  const output = JSON.stringify({ id: `call_${id}`, content: JSON.stringify(rows) });
  return `function_call: ${call}\n\nfunction_call_output: ${output}`;
}

function metaLine(g: Gen, turn: number): string {
  const pt = g.int(100, 90000);
  const ct = g.int(10, 4000);
  return `meta: pt=${pt} ct=${ct} tt=${pt + ct} cct=${g.int(0, pt)} rt=${g.int(0, ct)} ` +
    `pt_c=${pt * turn} ct_c=${ct * turn} tt_c=${(pt + ct) * turn} cct_c=0 cwt_c=0 rt_c=0 ` +
    `inference_id=${Math.floor(g.r() * 1e16).toString(16)}-4e5f-8a9b-0c1d2e3f4a5b ` +
    `timestamp=2025-01-0${g.int(1, 9)}T12:34:56.789Z reas="${sentence(g)} a=b"`;
}

/**
 * One realistic chat file.
 *
 * @param seed PRNG seed
 * @returns the chat text
 */
export function chatFile(seed: number): string {
  const g = gen(seed);
  const parts: string[] = [`system:\n\n${paragraph(g)}`];
  if (g.r() < 0.3) {
    parts.unshift(`endpoint: local\nmodel: m${g.int(1, 9)}\noption: temperature 0.2`);
  }
  const turns = g.int(2, 14);
  let call = 0;
  for (let t = 1; t <= turns; t++) {
    const userParts = [prose(g)];
    if (g.r() < 0.3) userParts.push(xmlFile(g));
    if (g.r() < 0.1) userParts.push(cmdBlock(g));
    if (g.r() < 0.08) userParts.push(`[[\n${sentence(g)}\nassistant: protected\n]]`);
    parts.push(g.r() < 0.2 ? `user: ${sentence(g)}` : `user:\n\n${userParts.join("\n\n")}`);
    const calls = g.r() < 0.5 ? g.int(1, 4) : 0;
    for (let c = 0; c < calls; c++) {
      parts.push(metaLine(g, t));
      parts.push(toolCall(g, ++call));
    }
    parts.push(metaLine(g, t));
    const reply = [prose(g)];
    if (g.r() < 0.5) reply.push(fence(g));
    if (g.r() < 0.3) reply.push(prose(g));
    parts.push(`assistant:\n\n${reply.join("\n\n")}`);
    if (g.r() < 0.2) parts.push(`previous_response_id: resp_${g.int(1e6, 9e6)}`);
  }
  const text = parts.join("\n\n") + "\n";
  return g.r() < 0.125 ? text.replaceAll("\n", "\r\n") : text;
}

/**
 * Chat files adding up to at least `megabytes` MB (10^6 bytes of UTF-8).
 *
 * @param megabytes target size
 * @param seed first seed
 * @returns the files' texts and their total UTF-8 size in bytes
 */
export function chatCorpus(megabytes: number, seed = 1): { files: string[]; bytes: number } {
  const enc = new TextEncoder();
  const files: string[] = [];
  let bytes = 0;
  for (let i = 0; bytes < megabytes * 1e6; i++) {
    const f = chatFile(seed + i);
    files.push(f);
    bytes += enc.encode(f).length;
  }
  return { files, bytes };
}

if (import.meta.main) {
  const mb = Number(Deno.args[0] ?? "50");
  const { files, bytes } = chatCorpus(mb);
  const dir = new URL("./out/chat_corpus/", import.meta.url);
  await Deno.mkdir(dir, { recursive: true });
  for (const [i, f] of files.entries()) {
    await Deno.writeTextFile(new URL(`${String(i).padStart(5, "0")}.chat`, dir), f);
  }
  console.log(`${files.length} files, ${(bytes / 1e6).toFixed(1)} MB in ${dir.pathname}`);
}
