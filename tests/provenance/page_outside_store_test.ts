/**
 * A hostile job store cannot put a local file into the shareable `--html`
 * page (R99-1): a log reached through a symbolic link to `/proc/self/environ`,
 * to a chat or a plain file outside the store (absolute or relative link), or
 * through a symlinked `.files/log` directory is listed as
 * "(outside the store: not embedded)" and its text is not in the page; an
 * ordinary log inside the job's `.files/` still has its messages embedded.
 * The walk itself skips a link to a file under `/proc`, `/sys` or `/dev`
 * with a `log_chat_skipped` warning. The real CLI in a subprocess: its own
 * environment is what the link reads.
 */
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { runScout } from "../support/cli.ts";
import { tmp, write } from "./support.ts";

const JOB = "W/t/Default_1234567890.chat";

/** The page's data: the JSON in its `prov-data` element. */
function pageData(html: string): {
  nodes: { label: string; path: string; outside?: boolean; messages: unknown }[];
} {
  const m = /<script type="application\/json" id="prov-data">(.*?)<\/script>/s.exec(html);
  return JSON.parse(m![1]!);
}

/** A store whose job `W/t/…` has one log per `links` entry (name → target), and the root chat. */
function store(dir: string, links: Record<string, string>, own = true): void {
  const job = join(dir, "lk", "jobs", JOB);
  mkdirSync(job + ".files/log", { recursive: true });
  write(job + ".info", '{"workflow":"W","task_name":"t","status":"done"}');
  write(job, "assistant:\n\nok\n");
  if (own) write(job + ".files/log/own.chat", "user:\n\nINSTORE question\n\nassistant:\n\nfine\n");
  for (const [name, target] of Object.entries(links)) {
    symlinkSync(target, join(job + ".files/log", name));
  }
  write(
    join(dir, "lk", "c.chat"),
    `user:\n\nq\n\nmeta: job=${JOB}\n\nassistant:\n\nA\n`,
  );
}

async function page(dir: string): Promise<{ html: string; stderr: string }> {
  const r = await runScout(
    ["llm", "prov", "c.chat", "--jobs-dir", "jobs", "--html", "p2.html"],
    {
      cwd: join(dir, "lk"),
      env: { OPENAI_API_KEY: "sk-LEAKME", SCOUT_HOME: join(dir, "home"), HOME: dir },
    },
  );
  assert.equal(r.code, 0, r.stderr);
  return { html: await Deno.readTextFile(join(dir, "lk", "p2.html")), stderr: r.stderr };
}

Deno.test("--html: a log linked to /proc/self/environ does not put the key in the page (R99-1)", async () => {
  await using d = await tmp();
  store(d.path, { "z.chat": "/proc/self/environ" });
  const { html, stderr } = await page(d.path);
  assert.ok(!html.includes("sk-LEAKME"), "the key is in the page");
  // the walk does not read it at all: a warning, no node
  assert.match(
    stderr,
    /links to "\/proc\/[0-9]+\/environ", a system file, not a chat: not read \(log_chat_skipped\)/,
  );
  assert.ok(!stderr.includes("sk-LEAKME"));
  assert.ok(!pageData(html).nodes.some((n) => n.path.startsWith("/proc/")));
  // the ordinary in-store log keeps its messages
  const own = pageData(html).nodes.find((n) => n.path.endsWith("/log/own.chat"))!;
  assert.ok(JSON.stringify(own.messages).includes("INSTORE question"), JSON.stringify(own));
  assert.equal(own.outside, undefined);
});

Deno.test("--html: logs linked out of the store (absolute, relative, plain file, linked log dir) are not embedded (R99-1)", async () => {
  await using d = await tmp();
  write(join(d.path, "outside", "secret.chat"), "user:\n\nTOPSECRET-1\n");
  write(join(d.path, "outside", "notes.txt"), "TOPSECRET-2 plain text\n");
  store(d.path, {
    "abs.chat": join(d.path, "outside", "secret.chat"),
    "rel.chat": "../../../../../../outside/notes.txt",
  });
  const { html } = await page(d.path);
  assert.ok(!html.includes("TOPSECRET"), "a file outside the store is in the page");
  const nodes = pageData(html).nodes;
  const outside = nodes.filter((n) => n.outside === true).map((n) => n.path).sort();
  assert.deepEqual(outside, [
    join(Deno.realPathSync(d.path), "outside", "notes.txt"),
    join(Deno.realPathSync(d.path), "outside", "secret.chat"),
  ]);
  for (const n of nodes.filter((n) => n.outside)) assert.equal(n.messages, null);
  assert.ok(html.includes("(outside the store: not embedded)"));
  const own = nodes.find((n) => n.path.endsWith("/log/own.chat"))!;
  assert.ok(JSON.stringify(own.messages).includes("INSTORE question"));

  // a symlinked .files/log directory
  await using e = await tmp();
  write(join(e.path, "elsewhere", "a.chat"), "user:\n\nTOPSECRET-3\n");
  store(e.path, {}, false);
  const log = join(e.path, "lk", "jobs", JOB + ".files", "log");
  Deno.removeSync(log, { recursive: true });
  symlinkSync(join(e.path, "elsewhere"), log);
  const linked = await page(e.path);
  assert.ok(!linked.html.includes("TOPSECRET"), "a linked log directory is in the page");
  assert.ok(pageData(linked.html).nodes.some((n) => n.outside === true));
});
