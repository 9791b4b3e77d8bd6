/**
 * `workflow list` and `workflow info`: broken files named, pids on other
 * hosts, name prefixes, directories of workflows.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hostname } from "node:os";
import { ROOT, runMain, tempDir } from "../support/cli.ts";
import { BAKING, env, userWorkflow } from "./cli_support.ts";

Deno.test("workflow list: a broken workflow file is named on stderr, the others still listed", async () => {
  await using d = await tempDir();
  const e = env(d.path);
  userWorkflow(d.path, "Good", "export default { tasks: { hi: { run: () => 'hi' } } };");
  userWorkflow(d.path, "Bad", "throw new Error('syntax of doom');\nexport default 1;");
  const l = await runMain(["workflow", "list"], { cwd: d.path, env: e });
  assert.equal(l.code, 1);
  // one name a line, as Scout's (R158-6): the broken one named too
  assert.equal(l.stdout, "Bad\nGood\nChatAnalyst\n");
  assert.match(
    l.stderr,
    /warning: Cannot load workflow file ".*Bad\/workflow\.ts": syntax of doom/,
  );
  const j = await runMain(["workflow", "list", "--json"], { cwd: d.path, env: e });
  const rows = JSON.parse(j.stdout).workflows;
  assert.deepEqual(rows.map((r: { name: string }) => r.name), ["Bad", "Good", "ChatAnalyst"]);
  assert.match(rows[0].error, /syntax of doom/);
  assert.equal("error" in rows[1], false);
});

Deno.test("workflow list names the built-in ChatAnalyst after the directories' workflows, one name a line as Scout's (R158-6); one of yours of that name wins (R110-9)", async () => {
  await using d = await tempDir();
  const e = env(d.path);
  let stderr = "";
  const list = async (...args: string[]) => {
    const r = await runMain(["workflow", "list", ...args], { cwd: d.path, env: e });
    assert.equal(r.code, 0, r.stderr);
    stderr = r.stderr;
    return r.stdout;
  };
  const tasks = "chat_provenance result_version message_index message_content chat_overview " +
    "chat_tool_calls chat_tokens chat_agents chat_report";
  assert.equal(await list(), "ChatAnalyst\n");
  assert.equal(stderr, "(no workflows in ./workflows or $SCOUT_HOME/workflows)\n");
  assert.deepEqual(JSON.parse(await list("--json")).workflows, [
    { name: "ChatAnalyst", file: null, builtin: true, tasks: tasks.split(" ") },
  ]);
  const file = join(
    userWorkflow(d.path, "Good", "export default { tasks: { hi: { run: () => 'hi' } } };"),
    "workflow.ts",
  );
  assert.equal(await list(), "Good\nChatAnalyst\n");
  assert.equal(stderr, "");
  assert.deepEqual(JSON.parse(await list("--json")).workflows[0], {
    name: "Good",
    file,
    builtin: false,
    tasks: ["hi"],
  });
  // a directory's listing is that directory's
  assert.equal(await list(join(d.path, "workflows")), "Good\n");
  userWorkflow(d.path, "ChatAnalyst", "export default { tasks: { mine: { run: () => 'm' } } };");
  assert.equal(await list(), "ChatAnalyst\nGood\n");
  assert.match(await list("ChatAnalyst"), /^mine \[binary\]\n$/); // its tasks
});

Deno.test("workflow info/list: a pid on another host is unknown (not guessed); no pid is no process", async () => {
  await using d = await tempDir();
  const e = env(d.path);
  const dir = join(d.path, "var/jobs/Baking/whisk");
  mkdirSync(dir, { recursive: true });
  const write = (name: string, info: Record<string, unknown>) =>
    writeFileSync(join(dir, name + ".info"), JSON.stringify(info));
  // pid 1 exists on every Linux host: only the host name can make it unknown
  write("Remote", { status: "napping", pid: 1, pid_hostname: "elsewhere.example" });
  write("Nopid", { status: "start" });
  // above Linux's pid_max (2^22): no such process can exist
  write("Gone", { status: "start", pid: 2 ** 22 + 1, pid_hostname: hostname() });
  const json = async (name: string) =>
    JSON.parse(
      (await runMain(["workflow", "info", join(dir, name), "--json"], { cwd: d.path, env: e }))
        .stdout,
    );
  const remote = await json("Remote");
  assert.deepEqual(
    [remote.status, remote.running, remote.process, remote.stale],
    ["napping", null, "unknown", false],
  );
  const text = await runMain(["workflow", "info", join(dir, "Remote")], { cwd: d.path, env: e });
  assert.match(
    text.stdout,
    /status +napping \(unknown: its process 1 is on host elsewhere\.example\) \(no result\)/,
  );
  const nopid = await json("Nopid");
  assert.deepEqual([nopid.status, nopid.running, nopid.process, nopid.stale], [
    "start",
    false,
    "none",
    false,
  ]);
  const gone = await json("Gone");
  assert.deepEqual([gone.status, gone.running, gone.process, gone.stale], [
    "stale",
    false,
    "gone",
    true,
  ]);
  const list = await runMain(["workflow", "list", BAKING], { cwd: d.path, env: e });
  assert.match(list.stdout, /^ {2}stale {4}Gone {2}\(was start; its process \d+@\S+ is gone\)$/m);
  assert.match(list.stdout, /^ {2}napping {2}Remote {2}\(unknown: its process 1 is on host/m);
  assert.match(list.stdout, /^ {2}start {4}Nopid$/m);
});

Deno.test("workflow info: a name prefix (say which job, on stderr), a .info file, a .files dir", async () => {
  await using d = await tempDir();
  const e = env(d.path);
  const run = (args: string[]) => runMain(args, { cwd: d.path, env: e });
  assert.equal((await run(["workflow", "task", BAKING, "cake", "--eggs", "3"])).code, 0);
  const cake = JSON.parse(
    (await run(["workflow", "task", BAKING, "cake", "--eggs", "3", "--json"]))
      .stdout,
  ).path as string;
  assert.match(cake, /\/Baking\/cake\/Default_[0-9a-f]{32}$/);
  const byPrefix = await run(["workflow", "info", "Baking/cake/Default", "--json"]);
  assert.equal(byPrefix.code, 0, byPrefix.stderr);
  assert.equal(JSON.parse(byPrefix.stdout).path, cake);
  assert.equal(byPrefix.stderr, `scout-ai: "Baking/cake/Default" matched ${cake}\n`);
  const byInfo = await run(["workflow", "info", cake + ".info", "--json"]);
  assert.equal(JSON.parse(byInfo.stdout).path, cake, byInfo.stderr);
  assert.equal(JSON.parse(byInfo.stdout).status, "done");
  assert.equal(byInfo.stderr, "", "an exact .info path needs no note");
  const byFiles = await run(["workflow", "info", cake + ".files/", "--json"]);
  assert.equal(JSON.parse(byFiles.stdout).path, cake, byFiles.stderr);
  const batter = await run(["workflow", "info", "Baking/batter/Default_", "--json"]);
  assert.match(JSON.parse(batter.stdout).path, /\/Default_[0-9a-f]{32}\.json$/);
  // a prefix that reaches into the info file's name
  const batterPath = JSON.parse(batter.stdout).path as string;
  const intoInfo = await run(["workflow", "info", `${batterPath}.i`, "--json"]);
  assert.equal(intoInfo.code, 0, intoInfo.stderr);
  assert.equal(JSON.parse(intoInfo.stdout).path, batterPath);
  // an exact name wins over the prefix; two prefix matches are an error listing them
  await run(["workflow", "task", BAKING, "cake"]);
  const exact = await run(["workflow", "info", "Baking/cake/Default", "--json"]);
  assert.equal(JSON.parse(exact.stdout).path, join(d.path, "var/jobs/Baking/cake/Default"));
  assert.equal(exact.stderr, "");
  await run(["workflow", "task", BAKING, "cake", "--eggs", "4"]);
  const two = await run(["workflow", "info", "Baking/cake/Default_"]);
  assert.equal(two.code, 1);
  assert.match(
    two.stderr,
    /Job "Baking\/cake\/Default_" matches 2 jobs: ".*Default_[0-9a-f]{32}", /,
  );
  const none = await run(["workflow", "info", "Baking/cake/Nothing"]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /Job not found: "Baking\/cake\/Nothing"/);
});

Deno.test("workflow list DIR: a directory of workflows lists them; task help names the workflow as given", async () => {
  await using d = await tempDir();
  const e = env(d.path);
  const dir = join(ROOT, "fixtures", "workflows");
  const l = await runMain(["workflow", "list", dir], { cwd: d.path, env: e });
  assert.equal(l.code, 0, l.stderr);
  assert.equal(l.stdout, "Baking\nSlow\n");
  const j = JSON.parse(
    (await runMain(["workflow", "list", dir, "--json"], { cwd: d.path, env: e }))
      .stdout,
  );
  assert.deepEqual(j.workflows.map((w: { name: string }) => w.name), ["Baking", "Slow"]);
  const empty = await runMain(["workflow", "list", d.path], { cwd: d.path, env: e });
  assert.equal(empty.stdout, "");
  assert.equal(empty.stderr, `(no workflows in ${d.path})\n`);
  const h = await runMain(["workflow", "task", BAKING, "whisk", "--help"], { cwd: d.path, env: e });
  // the usage is wrapped at 80 columns (R141-5): a long path puts what follows on the next line
  assert.match(h.stdout, new RegExp(`^Usage: scout-ai workflow task ${BAKING}\\s+whisk\\s`));
  assert.match(
    h.stdout,
    new RegExp(`Examples:\n {2}scout-ai workflow task ${BAKING} whisk --eggs 2\n`),
  );
});

Deno.test("workflow info: each malformed dependency entry is warned about, as llm prov does (R88-9)", async () => {
  await using d = await tempDir();
  const e = env(d.path);
  const dir = join(d.path, "var/jobs/W/t");
  mkdirSync(dir, { recursive: true });
  const job = join(dir, "J");
  writeFileSync(job, "hi");
  const info = (deps: unknown) =>
    writeFileSync(job + ".info", JSON.stringify({ status: "done", dependencies: deps }));
  const warning = (entry: string) =>
    `scout-ai: warning: Dependency ${entry} of job "${job}" does not resolve to a job (not a ` +
    "path); not listed\n";
  info(["/nope/x", 42, null, { a: 1 }, ["W", "t", 7], ["W", "t", "/nope/y"]]);
  for (const json of [[], ["--json"]]) {
    const r = await runMain(["workflow", "info", job, ...json], { cwd: d.path, env: e });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stderr,
      ["42", "null", '{"a":1}', '["W","t",7]'].map(warning).join(""),
    );
    if (json.length === 0) assert.match(r.stdout, /dependency missing \/nope\/x\n.*\/nope\/y/);
  }
  info("oops");
  const r = await runMain(["workflow", "info", job], { cwd: d.path, env: e });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stderr,
    `scout-ai: warning: Dependencies of job "${job}" are "oops", not a list; none listed\n`,
  );
});

Deno.test("workflow info --json: info.issued/start/end are the .info's own, in Scout's format; --help says so (R143-7)", async () => {
  await using d = await tempDir();
  const job = join(ROOT, "fixtures", "scout-jobs", "var", "jobs", "Baking", "bake", "Default");
  const r = await runMain(["workflow", "info", job, "--json"], { cwd: d.path, env: env(d.path) });
  const info = JSON.parse(r.stdout).info;
  assert.equal(info.issued, "2026-12-02 07:55:28 +0000"); // as written, Ruby's Time#to_s
  const help = await runMain(["workflow", "info", "--help"], { cwd: d.path, env: env(d.path) });
  const text = help.stdout.replace(/\s+/g, " ");
  assert.match(text, /info\.issued, info\.start and info\.end are copied from the job's \.info/);
  assert.match(text, /"2026-12-02 07:55:28 \+0000"/);
});
