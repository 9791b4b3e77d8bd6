/**
 * ChatAnalyst as a workflow: found by name (a user's own wins), every task
 * documented in its --help, chat_report composed from cached dependency
 * jobs, and bad input reported as warnings, never an empty success.
 */
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runMain, tempDir } from "../support/cli.ts";

const FIX = join(ROOT, "fixtures/provenance");
const EXAMPLE = join(FIX, "example/session.chat");
const EXAMPLE_JOBS = join(FIX, "example/jobs");

const TASKS = [
  "message_index",
  "message_content",
  "chat_overview",
  "chat_tool_calls",
  "chat_tokens",
  "chat_agents",
  "chat_report",
];

/** Every file under the ChatAnalyst job directory with its size and mtime. */
function storeState(home: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else out.push(`${p.slice(home.length)} ${st.size} ${st.mtimeMs}`);
    }
  };
  walk(join(home, "var/jobs/ChatAnalyst"));
  return out;
}

async function task(
  home: string,
  name: string,
  args: string[],
  cwd?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return await runMain(["workflow", "task", "ChatAnalyst", name, ...args], {
    env: { SCOUT_HOME: home, NO_COLOR: "1" },
    ...(cwd === undefined ? {} : { cwd }),
  });
}

Deno.test("every ChatAnalyst task documents its inputs and result in --help", async () => {
  await using home = await tempDir();
  const wf = await task(home.path, "--help", []);
  assert.equal(wf.code, 0, wf.stderr);
  for (const t of TASKS) {
    const r = await task(home.path, t, ["--help"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`ChatAnalyst/${t}: \\S`));
    // wrapped at 80 columns (R94-9)
    assert.match(
      r.stdout.replace(/\s+/g, " "),
      /--file <file> +chat file, or job path.*\(required\)/,
    );
    assert.match(r.stdout, /Result type: (json|text) — \S/);
    // the walk's schema version is fixed by the tasks depending on it (R111-4's follow-up)
    assert.doesNotMatch(r.stdout, /schema_version/);
    assert.ok(wf.stdout.includes(t), t);
  }
  const report = await task(home.path, "chat_report", ["--help"]);
  assert.match(
    report.stdout.replace(/\s+/g, " "),
    /chat_overview, chat_tokens, chat_tool_calls and chat_agents/,
  );
});

Deno.test("a user's own ChatAnalyst in ./workflows wins over the built-in one", async () => {
  await using dir = await tempDir();
  const wfDir = join(dir.path, "workflows/ChatAnalyst");
  mkdirSync(wfDir, { recursive: true });
  writeFileSync(
    join(wfDir, "workflow.ts"),
    `export default (api) => api.workflow("ChatAnalyst", { tasks: { chat_report: {
      type: "string", inputs: { file: api.input.string() }, run: () => "mine" } } });\n`,
  );
  const mine = await task(join(dir.path, "home"), "chat_report", ["--file", "x"], dir.path);
  assert.equal(mine.code, 0, mine.stderr);
  assert.equal(mine.stdout, "mine\n");
  // elsewhere the built-in one answers
  const builtin = await task(join(dir.path, "home"), "chat_report", [
    "--file",
    EXAMPLE,
    "--jobs_dir",
    EXAMPLE_JOBS,
  ]);
  assert.equal(builtin.code, 0, builtin.stderr);
  assert.match(builtin.stdout, /^# Provenance report: /);
});

Deno.test("chat_report reuses its dependencies' jobs: a second report computes nothing", async () => {
  await using home = await tempDir();
  const args = ["--file", EXAMPLE, "--jobs_dir", EXAMPLE_JOBS];
  const first = await task(home.path, "chat_report", args);
  assert.equal(first.code, 0, first.stderr);
  const jobs = readdirSync(join(home.path, "var/jobs/ChatAnalyst")).sort();
  assert.deepEqual(jobs, [
    "chat_agents",
    "chat_overview",
    "chat_provenance",
    "chat_report",
    "chat_tokens",
    "chat_tool_calls",
  ]);
  const before = storeState(home.path);
  const again = await task(home.path, "chat_report", args);
  assert.equal(again.stdout, first.stdout);
  assert.deepEqual(storeState(home.path), before, "the second report wrote no file");
  // a dependency asked for directly is the same job (shared, not recomputed)
  const tokens = await task(home.path, "chat_tokens", [...args, "--json"]);
  assert.deepEqual(storeState(home.path), before);
  const total = JSON.parse(tokens.stdout).result.totals.deduplicated_total.tt;
  assert.match(first.stdout, new RegExp(`\\| deduplicated_total \\|( \\d+ \\|){5} ${total} \\|`));
  // the report is composed from the dependencies' results
  const info = JSON.parse(
    readFileSync(
      join(
        home.path,
        "var/jobs/ChatAnalyst/chat_report",
        readdirSync(join(home.path, "var/jobs/ChatAnalyst/chat_report")).find((f) =>
          f.endsWith(".info")
        )!,
      ),
      "utf8",
    ),
  );
  assert.equal(info.dependencies.length, 4);
});

Deno.test("bad input: a missing file, a directory, malformed receipts give warnings, never an empty success", async () => {
  await using home = await tempDir();
  const cases: [string, string, RegExp][] = [
    [join(home.path, "nope.chat"), "root_not_found", /not found: ".*nope\.chat"/],
    [join(FIX, "example"), "not_a_chat", /is a directory, not a chat file or a job/],
    [
      join(FIX, "errors/receipt_not_an_array/session.chat"),
      "receipt_problem",
      /agent_meta receipt not_an_array/,
    ],
  ];
  for (const [file, code, message] of cases) {
    for (
      const t of ["chat_overview", "chat_tokens", "chat_tool_calls", "chat_agents", "message_index"]
    ) {
      const r = await task(home.path, t, ["--file", file, "--json"]);
      assert.equal(r.code, 0, r.stderr);
      const res = JSON.parse(r.stdout).result;
      assert.equal(res.complete, false, `${t} ${file}`);
      assert.ok(
        res.warnings.some((w: { code: string; message: string }) =>
          w.code === code && message.test(w.message)
        ),
        `${t} ${file}: ${JSON.stringify(res.warnings)}`,
      );
    }
    const report = await task(home.path, "chat_report", ["--file", file]);
    assert.match(report.stdout, /complete: no \(\d+ warnings?\)/);
    assert.match(report.stdout, new RegExp("`" + code + "`"));
  }
});

Deno.test("message_index and message_content: addresses and lineage ids of discovered chats only", async () => {
  await using home = await tempDir();
  const args = ["--file", EXAMPLE, "--jobs_dir", EXAMPLE_JOBS, "--json"];
  const idx = JSON.parse((await task(home.path, "message_index", args)).stdout).result;
  assert.equal(idx.complete, true);
  assert.equal(idx.chats, 6);
  const first = idx.messages[0];
  assert.deepEqual(first.address, [EXAMPLE, 0]);
  assert.match(first.lineage_id, /^[0-9a-f]{64}$/);
  const want = [idx.messages[1].address, [EXAMPLE, 999], ["/etc/passwd", 0]];
  const r = await task(home.path, "message_content", [
    ...args,
    "--addresses",
    JSON.stringify(want),
  ]);
  const got = JSON.parse(r.stdout).result;
  assert.equal(got.messages.length, 1);
  assert.deepEqual(got.messages[0].address, idx.messages[1].address);
  assert.equal(got.messages[0].lineage_id, idx.messages[1].lineage_id);
  assert.equal(got.complete, false);
  assert.deepEqual(got.warnings.map((w: { code: string }) => w.code), [
    "address_not_found",
    "address_not_found",
  ]);
  assert.match(got.warnings[1].message, /"\/etc\/passwd" is not part of the provenance/);
});

Deno.test("chat_agents links each delegation as provenance does: nested and one-shot society logs", async () => {
  await using home = await tempDir();
  const society = join(FIX, "society");
  const r = await task(home.path, "chat_agents", [
    "--file",
    join(society, "plan.chat"),
    "--jobs_dir",
    join(society, "jobs"),
    "--json",
  ]);
  assert.equal(r.code, 0, r.stderr);
  const ds = JSON.parse(r.stdout).result.delegations as {
    caller: { agent: string | null };
    target: string;
    conversation: string;
    association: string;
    job: string | null;
    jobs: string[];
    log: string | null;
  }[];
  const tail = (p: string | null) => p?.replace(/^.*\/jobs\//, "") ?? null;
  const planner = "Planner/ask/Default_cefe35d22d3230689b5106496c2f2c0e.chat.files/log";
  const critic = "Critic/ask/Default_7306c721a4a0b9b93a429f47ef56241b.chat";
  const facts = `${planner}/society/Researcher/facts.chat`;
  const askFacts = ["Researcher", "facts", "inferred", null, [], facts];
  // the hand-off's receipt names the Critic's job: structural, with that job's log
  const handOff = [
    "Critic",
    "default",
    "structural",
    critic,
    [critic],
    `${critic}.files/log/agent.chat`,
  ];
  const plannerCalls = [askFacts, askFacts, handOff];
  assert.deepEqual(
    ds.map((d) => [
      d.caller.agent,
      d.target,
      d.conversation,
      d.association,
      tail(d.job),
      d.jobs.map(tail),
      tail(d.log),
    ]),
    [
      // the session's copies of the Planner's calls: through the job it projects
      ...plannerCalls.map((c) => [null, ...c]),
      // the Planner's log: its sibling society/
      ...plannerCalls.map((c) => ["Planner", ...c]),
      // the Researcher's one-shot ask of the Librarian: its nested society, a one-shot log
      [
        "Researcher",
        "Librarian",
        "_oneshot-1",
        "inferred",
        null,
        [],
        `${planner}/society/Researcher/facts/society/Librarian/_oneshot-1.chat`,
      ],
      // the Planner job's result: the job's log/society/
      ...plannerCalls.map((c) => ["Planner", ...c]),
    ],
  );
});
