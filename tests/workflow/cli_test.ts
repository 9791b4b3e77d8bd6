/**
 * `workflow task`: running, caching, --clean/--recompute, help, bad input,
 * where workflows and jobs are found, progress, values from files and stdin.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { BAKING, env, userWorkflow } from "./cli_support.ts";

Deno.test("workflow task: runs, prints the result, caches; --json and --print-path", async () => {
  await using d = await tempDir();
  const r = await runMain([
    "workflow",
    "task",
    BAKING,
    "cake",
    "--eggs",
    "3",
    "--toppings",
    "cream",
    "--toppings",
    "nuts",
  ], {
    cwd: d.path,
    env: env(d.path),
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "Cake (Whisked 3 soft, 0.5 kg flour, 30 min) with cream, nuts\n");
  assert.equal(r.stderr, ""); // no progress when stderr is not a TTY
  const j = await runMain(["workflow", "task", BAKING, "batter", "--eggs", "3", "--json"], {
    cwd: d.path,
    env: env(d.path),
  });
  const out = JSON.parse(j.stdout);
  assert.deepEqual(Object.keys(out), ["version", "path", "shortPath", "status", "result"]);
  assert.equal(out.status, "done");
  assert.deepEqual(out.result, { batter: "Whisked 3 soft", flour: 0.5 });
  assert.equal(out.path, join(d.path, "var/jobs/Baking/batter", out.shortPath.split("/")[2]));
  const before = readFileSync(out.path + ".info", "utf8");
  const p = await runMain(["workflow", "task", BAKING, "batter", "--eggs=3", "--print-path"], {
    cwd: d.path,
    env: env(d.path),
  });
  assert.equal(p.stdout, out.path + "\n");
  assert.equal(readFileSync(out.path + ".info", "utf8"), before); // cache hit: info untouched
});

Deno.test("workflow task: --clean reruns the job, --recompute its dependencies too", async () => {
  await using d = await tempDir();
  const e = env(d.path);
  await runMain(["workflow", "task", BAKING, "batter"], { cwd: d.path, env: e });
  const whiskInfo = join(d.path, "var/jobs/Baking/whisk/Default.info");
  const batterInfo = join(d.path, "var/jobs/Baking/batter/Default.json.info");
  writeFileSync(
    whiskInfo,
    readFileSync(whiskInfo, "utf8").replace('"status":"done"', '"status":"done","mark":1'),
  );
  writeFileSync(
    batterInfo,
    readFileSync(batterInfo, "utf8").replace('"status":"done"', '"status":"done","mark":1'),
  );
  assert.equal(
    (await runMain(["workflow", "task", BAKING, "batter", "--clean"], { cwd: d.path, env: e }))
      .code,
    0,
  );
  assert.equal(readFileSync(batterInfo, "utf8").includes('"mark"'), false);
  assert.equal(readFileSync(whiskInfo, "utf8").includes('"mark"'), true);
  await runMain(["workflow", "task", BAKING, "batter", "--recompute"], { cwd: d.path, env: e });
  assert.equal(readFileSync(whiskInfo, "utf8").includes('"mark"'), false);
});

Deno.test("workflow task --help lists inputs with types and defaults; no task lists tasks", async () => {
  await using d = await tempDir();
  const h = await runMain(["workflow", "task", BAKING, "cake", "--help"], {
    cwd: d.path,
    env: env(d.path),
  });
  assert.equal(h.code, 0);
  assert.match(h.stdout, /--minutes <integer> +Baking time \(default: 30\)/);
  assert.match(h.stdout, /--eggs <integer> +Number of eggs \(default: 2\) \[dependency\]/);
  assert.match(h.stdout, /--style <select> +Style; one of: soft, hard \(default: soft\)/);
  assert.match(h.stdout, /Examples:/);
  const l = await runMain(["workflow", "task", BAKING], { cwd: d.path, env: env(d.path) });
  assert.equal(l.code, 0); // listing the tasks is an answer (tests/cli/usage_streams_test.ts)
  assert.match(l.stdout, /Tasks:\n {2}whisk +Whisk some eggs\. \[string\]/);
  const g = await runMain(["workflow", "task", "--help"], { cwd: d.path, env: env(d.path) });
  assert.equal(g.code, 0);
  assert.match(g.stdout, /Usage: scout-ai workflow task WORKFLOW TASK/);
  assert.match(
    g.stdout,
    /Examples[^\n]*:\n {2}scout-ai workflow task fixtures\/workflows\/Baking +# its tasks\n {2}scout-ai workflow task fixtures\/workflows\/Baking cake/,
  );
  const group = await runMain(["workflow", "--help"], { cwd: d.path, env: env(d.path) });
  assert.equal(group.code, 0);
  assert.match(group.stdout, /Examples:\n {2}scout-ai workflow list fixtures\/workflows\n/);
});

Deno.test("bad input: unknown workflow/task/input with suggestions, wrong types, job name with /", async () => {
  await using d = await tempDir();
  const e = env(d.path);
  userWorkflow(
    d.path,
    "Baking2",
    "export default (api) => api.workflow('Baking2', { tasks: { t: { run: () => 1 } } });",
  );
  let r = await runMain(["workflow", "task", "Bakin2", "t"], { cwd: d.path, env: e });
  assert.equal(r.code, 2); // a WORKFLOW naming none: a usage error, as an unknown task (R94-4)
  assert.match(r.stderr, /Workflow "Bakin2" not found; did you mean "Baking2"\?/);
  r = await runMain(["workflow", "task", BAKING, "cak"], { cwd: d.path, env: e });
  assert.equal(r.code, 2); // a usage error, as an unknown input is
  assert.match(r.stderr, /Task "cak" not found in workflow "Baking"; did you mean "cake"\?/);
  r = await runMain(["workflow", "task", BAKING, "cake", "--egs", "3"], { cwd: d.path, env: e });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /Unknown input --egs for Baking\/cake; did you mean --eggs\?/);
  r = await runMain(["workflow", "task", BAKING, "cake", "--eggs", "many"], {
    cwd: d.path,
    env: e,
  });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /Input --eggs of Baking\/cake expects an integer, got "many"/);
  r = await runMain(["workflow", "task", BAKING, "whisk", "--style", "runny"], {
    cwd: d.path,
    env: e,
  });
  // A select value outside its options runs, as in Scout (§1.3).
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), "Whisked 2 runny");
  assert.equal(
    r.stderr,
    'scout-ai: warning: Input "style" of Baking/whisk is "runny", not one of "soft", "hard"; using it anyway\n',
  );
  r = await runMain(["workflow", "task", BAKING, "cake", "--eggs"], { cwd: d.path, env: e });
  assert.match(r.stderr, /Missing value for --eggs/);
  r = await runMain(["workflow", "task", BAKING, "cake", "--jobname", "a/b"], {
    cwd: d.path,
    env: e,
  });
  assert.equal(r.code, 2); // a usage error (R75-7)
  assert.match(r.stderr, /Job name "a\/b" of Baking\/cake is not valid/);
  assert.equal(existsSync(join(d.path, "var/jobs/Baking/cake/a")), false);
});

Deno.test("bad input: missing required input; workflow file that throws names the file", async () => {
  await using d = await tempDir();
  const e = env(d.path);
  userWorkflow(
    d.path,
    "Req",
    `export default (api) => api.workflow("Req", {
    tasks: { greet: { type: "string", inputs: { name: api.input.string({ required: true }), n: api.input.integer({ default: 1 }) },
      run: ({ name, n }) => "hi " + name + " x" + n } } });`,
  );
  let r = await runMain(["workflow", "task", "Req", "greet"], { cwd: d.path, env: e });
  // a usage error (exit 2, with the hint), as an unknown input is: the command line lacks it
  assert.equal(r.code, 2);
  assert.match(r.stderr, /Input "name" of Req\/greet is required but was not provided\n\(run with/);
  r = await runMain(["workflow", "task", "Req", "greet", "--name", "ann", "--n", "2"], {
    cwd: d.path,
    env: e,
  });
  assert.equal(r.stdout, "hi ann x2\n");
  const bad = userWorkflow(d.path, "Boom", "throw new Error('kaboom at load');\nexport default 1;");
  r = await runMain(["workflow", "task", "Boom", "t"], { cwd: d.path, env: e });
  assert.equal(r.code, 1);
  assert.ok(r.stderr.includes(join(bad, "workflow.ts")), r.stderr);
  assert.match(r.stderr, /kaboom at load/);
  userWorkflow(d.path, "Factory", "export default (api) => { throw new Error('bad factory'); };");
  r = await runMain(["workflow", "task", "Factory", "t"], { cwd: d.path, env: e });
  assert.match(
    r.stderr,
    /Workflow file ".*Factory\/workflow\.ts" failed while defining its workflow: bad factory/,
  );
  userWorkflow(d.path, "Nothing", "export default 42;");
  r = await runMain(["workflow", "task", "Nothing", "t"], { cwd: d.path, env: e });
  assert.match(r.stderr, /must default-export a workflow/);
});

Deno.test("workflows from $SCOUT_HOME/workflows, unnamed spec object takes the directory name; list", async () => {
  await using d = await tempDir();
  const home = join(d.path, "home");
  userWorkflow(
    home,
    "Plain",
    "export default { tasks: { hello: { type: 'string', run: () => 'hello' } } };",
  );
  const e = env(home);
  const r = await runMain(["workflow", "task", "Plain", "hello"], { cwd: d.path, env: e });
  assert.equal(r.stdout, "hello\n", r.stderr);
  assert.ok(existsSync(join(home, "var/jobs/Plain/hello/Default")));
  const l = await runMain(["workflow", "list"], { cwd: d.path, env: e });
  assert.match(l.stdout, /^Plain$/m); // one name a line, as Scout's (R158-6)
  const lw = await runMain(["workflow", "list", "Plain", "--json"], { cwd: d.path, env: e });
  const out = JSON.parse(lw.stdout);
  assert.equal(out.workflow, "Plain");
  assert.deepEqual(
    out.tasks[0].jobs.map((j: { name: string; status: string }) => [j.name, j.status]),
    [["Default", "done"]],
  );
  const lt = await runMain(["workflow", "list", BAKING], { cwd: d.path, env: e });
  assert.match(lt.stdout, /^cake \[text\] {2}Bake the batter/m);
});

Deno.test("--jobs-dir and SCOUT_JOBS_DIR pick the jobs directory", async () => {
  await using d = await tempDir();
  const jobs = join(d.path, "elsewhere");
  await runMain(["workflow", "task", BAKING, "whisk", "--jobs-dir", jobs], {
    cwd: d.path,
    env: env(d.path),
  });
  assert.ok(existsSync(join(jobs, "Baking/whisk/Default")));
  await runMain(["workflow", "task", BAKING, "whisk", "--eggs", "5"], {
    cwd: d.path,
    env: { ...env(d.path), SCOUT_JOBS_DIR: join(d.path, "env-jobs") },
  });
  const info = await runMain([
    "workflow",
    "info",
    "Baking/whisk/Default",
    "--jobs-dir",
    jobs,
    "--json",
  ], {
    cwd: d.path,
    env: env(d.path),
  });
  assert.equal(JSON.parse(info.stdout).status, "done");
  assert.ok(existsSync(join(d.path, "env-jobs/Baking/whisk")));
});

Deno.test("--jobs-dir: reading commands need a directory; task makes a missing one, never a file's", async () => {
  await using d = await tempDir();
  const e = env(d.path);
  const run = (...args: string[]) => runMain(["workflow", ...args], { cwd: d.path, env: e });
  writeFileSync(join(d.path, "notes.txt"), "x");
  // before: info said "Job not found", list listed no jobs (exit 0), task failed with ENOTDIR
  for (const args of [["info", "Baking/whisk/Default"], ["list", BAKING]]) {
    const r = await run(...args, "--jobs-dir", "nope");
    assert.equal(r.code, 1, args.join(" "));
    assert.equal(r.stderr, 'scout-ai: Cannot use --jobs-dir "nope": no such directory\n');
  }
  for (
    const args of [["info", "Baking/whisk/Default"], ["list", BAKING], ["task", BAKING, "whisk"]]
  ) {
    const r = await run(...args, "--jobs-dir", "notes.txt");
    assert.equal(r.code, 1, args.join(" "));
    assert.equal(r.stderr, 'scout-ai: Cannot use --jobs-dir "notes.txt": it is not a directory\n');
  }
  // a directory to be made under a file (before: ENOTDIR from lstat, naming no option)
  const under = await run("task", BAKING, "whisk", "--jobs-dir", "notes.txt/sub");
  assert.equal(under.code, 1);
  assert.equal(
    under.stderr,
    'scout-ai: Cannot use --jobs-dir "notes.txt/sub": "notes.txt" is not a directory\n',
  );
  const made = await run("task", BAKING, "whisk", "--jobs-dir", "new/jobs");
  assert.equal(made.code, 0, made.stderr);
  assert.ok(existsSync(join(d.path, "new/jobs/Baking/whisk")));
});

Deno.test("progress: status lines on a TTY stderr only, cleared at the end", async () => {
  await using d = await tempDir();
  const r = await runMain(["workflow", "task", BAKING, "batter"], {
    cwd: d.path,
    env: env(d.path),
    tty: true,
  });
  assert.equal(r.code, 0);
  // deno-lint-ignore no-control-regex
  assert.match(r.stderr, /\r\x1b\[Kstart Baking\/whisk\/Default/);
  // deno-lint-ignore no-control-regex
  assert.match(r.stderr, /\r\x1b\[Kdone Baking\/batter\/Default\.json\r\x1b\[K$/);
  assert.equal(r.stdout, '{"batter":"Whisked 2 soft","flour":0.5}\n');
  // TERM=dumb: no line redrawn with \r and ESC[K (NO_COLOR only drops the colour)
  const dumb = await runMain(["workflow", "task", BAKING, "cake"], {
    cwd: d.path,
    env: { ...env(d.path), TERM: "dumb" },
    tty: true,
  });
  assert.equal(dumb.code, 0, dumb.stderr);
  assert.equal(dumb.stderr, "");
  const plain = await runMain(["workflow", "task", BAKING, "whisk", "--eggs", "9"], {
    cwd: d.path,
    env: { ...env(d.path), NO_COLOR: "1" },
    tty: true,
  });
  assert.ok(plain.stderr.startsWith("\r\x1b[Kstart Baking/whisk/Default_"), plain.stderr);
  assert.ok(!plain.stderr.includes("\x1b[2m"), "not dimmed");
});

Deno.test("values from files and stdin: loaded by type, same job as inline values", async () => {
  await using d = await tempDir();
  const e = env(d.path);
  writeFileSync(join(d.path, "eggs.txt"), "4\n");
  writeFileSync(join(d.path, "tops.txt"), "cream\nnuts\n");
  const run = (args: string[], stdin?: string) =>
    runMain(["workflow", "task", BAKING, "cake", ...args], {
      cwd: d.path,
      env: e,
      ...(stdin !== undefined ? { stdin } : {}),
    });
  const inline = await run([
    "--eggs",
    "4",
    "--toppings",
    "cream",
    "--toppings",
    "nuts",
    "--print-path",
  ]);
  assert.equal(inline.code, 0, inline.stderr);
  // a numeric input's file name is not a usage error; an array file's trailing newline adds no item
  const files = await run(["--eggs", "eggs.txt", "--toppings", "tops.txt", "--print-path"]);
  assert.equal(files.code, 0, files.stderr);
  assert.equal(files.stdout, inline.stdout);
  const piped = await run(["--toppings", "-", "--eggs", "4", "--print-path"], "cream\nnuts\n");
  assert.equal(piped.stdout, inline.stdout, piped.stderr);
  const text = await run(["--eggs", "-"], "5\n");
  assert.equal(text.stdout, "Cake (Whisked 5 soft, 0.5 kg flour, 30 min)\n", text.stderr);
  const two = await run(["--eggs", "-", "--minutes", "-"], "1\n");
  assert.equal(two.code, 2);
  assert.match(two.stderr, /Only one input can read stdin: --eggs -, --minutes -/);
  assert.match((await run(["--eggs", "many"])).stderr, /expects an integer, got "many"/);
  userWorkflow(
    d.path,
    "Paths",
    "export default (api) => api.workflow('Paths', { tasks: { t: { type: 'string', inputs: { f: api.input.file() }, run: ({ f }) => f } } });",
  );
  const path = await runMain(["workflow", "task", "Paths", "t", "--f", "-"], {
    cwd: d.path,
    env: e,
    stdin: "x",
  });
  assert.equal(path.code, 2);
  assert.match(path.stderr, /Input --f takes a file path; "-" \(stdin\) is for value inputs/);
  const named = await runMain(["workflow", "task", "Paths", "t", "--f", "tops.txt"], {
    cwd: d.path,
    env: e,
  });
  assert.equal(named.stdout, join(d.path, "tops.txt") + "\n", "a file input keeps the path");
});
