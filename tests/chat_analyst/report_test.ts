/**
 * chat_report from the facts `chat_provenance` saves beside its analyses:
 * the same report as composing the four dependency results (fixtures and a
 * generated store), and the saved facts used only while the four results are
 * the very files they were taken from.
 */
import assert from "node:assert/strict";
import {
  copyFileSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { ROOT, runMain, tempDir } from "../support/cli.ts";
import { generateStore } from "../../bench/prov_store.ts";
import { renderReport, reportFacts } from "../../src/chat_analyst/report.ts";

const FIX = join(ROOT, "fixtures/provenance");
const PARTS = ["chat_overview", "chat_tokens", "chat_tool_calls", "chat_agents"] as const;

async function report(home: string, file: string, jobs: string): Promise<string> {
  const r = await runMain(
    ["workflow", "task", "ChatAnalyst", "chat_report", "--file", file, "--jobs_dir", jobs],
    { env: { SCOUT_HOME: home, NO_COLOR: "1" } },
  );
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

/** The one job (result file) of a task in the home's store. */
function jobOf(home: string, task: string): string {
  const dir = join(home, "var/jobs/ChatAnalyst", task);
  const name = readdirSync(dir).find((f) => !f.endsWith(".info") && !f.endsWith(".files"))!;
  return join(dir, name);
}

/** The report composed from the four dependency results as saved (parsed here). */
function composed(home: string): string {
  const r = Object.fromEntries(
    PARTS.map((t) => [t, JSON.parse(readFileSync(jobOf(home, t), "utf8"))]),
  ) as Parameters<typeof reportFacts>[0];
  return renderReport(reportFacts(r));
}

async function assertSameReport(file: string, jobs: string): Promise<string> {
  await using home = await tempDir("scout-report-");
  const text = await report(home.path, file, jobs);
  assert.equal(text, composed(home.path), file);
  return text;
}

Deno.test("chat_report from the saved facts is the report of its four results (fixtures)", async () => {
  const example = await assertSameReport(
    join(FIX, "example/session.chat"),
    join(FIX, "example/jobs"),
  );
  assert.match(example, /## Delegations\n\n\d+ delegations?: /);
  const cases = JSON.parse(readFileSync(join(FIX, "errors/cases.json"), "utf8")) as {
    name: string;
    root: string;
  }[];
  for (const c of cases) {
    const dir = join(FIX, "errors", c.name);
    await assertSameReport(join(dir, c.root), join(dir, "jobs"));
  }
});

Deno.test("chat_report from the saved facts is the report of its four results (generated store)", async () => {
  await using dir = await tempDir("scout-report-store-");
  const s = await generateStore(join(dir.path, "store"), { scale: 0.02, seed: 11 });
  const text = await assertSameReport(s.root, s.jobsDir);
  // long tables are cut: the facts keep the first rows and the counts
  assert.match(text, /\| node \| direct tt \|/);
  assert.match(text, /… and \d+ more\./);
});

Deno.test("chat_report uses the saved facts only while its results are the files they describe", async () => {
  await using home = await tempDir("scout-report-");
  const file = join(FIX, "example/session.chat");
  const jobs = join(FIX, "example/jobs");
  const first = await report(home.path, file, jobs);
  const inferences = /(\d+) inferences, each counted once/.exec(first)![1]!;
  const facts = join(jobOf(home.path, "chat_provenance") + ".files", "report_facts.json");
  const saved = JSON.parse(readFileSync(facts, "utf8"));
  saved.tokens.inferences = 424242;
  writeFileSync(facts, JSON.stringify(saved));
  const rerun = async () => {
    rmSync(join(home.path, "var/jobs/ChatAnalyst/chat_report"), { recursive: true });
    return await report(home.path, file, jobs);
  };
  // the facts are what the report shows (the results are not read again)
  assert.match(await rerun(), /\n424242 inferences, each counted once/);
  // chat_tokens' result no longer the saved analysis itself (a copy): the results are read
  const tokens = jobOf(home.path, "chat_tokens");
  copyFileSync(tokens, tokens + ".copy");
  renameSync(tokens + ".copy", tokens);
  const again = await rerun();
  assert.match(again, new RegExp(`\\n${inferences} inferences, each counted once`));
  assert.equal(again, first);
  // facts of another version are not used either
  rmSync(tokens);
  rmSync(join(home.path, "var/jobs/ChatAnalyst/chat_tokens"), { recursive: true });
  saved.version = 0;
  writeFileSync(facts, JSON.stringify(saved));
  assert.equal(await rerun(), first);
  // nor a cache written before the facts were saved
  rmSync(facts);
  assert.equal(await rerun(), first);
});
