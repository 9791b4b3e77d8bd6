/**
 * Every shell example in the docs runs as written: the ```sh blocks of
 * README.md, the "Examples:" section of every command's `--help` (the command
 * tree is walked from `scout-ai --help`), and the examples each task's help
 * prints for the bundled workflow. Each runs through `bash -o pipefail` with
 * `scout-ai` on PATH (the built binary, as a reader who downloaded it has it), in a
 * fresh copy of the clone's root (`fixtures/`, an empty git repository) with
 * a fresh HOME and `SCOUT_HOME=~/.scout` (for the README, a `SCOUT_HOME`
 * outside HOME) that already holds the jobs of a run of the bundled workflow
 * with other inputs. Examples that need a model get the loopback provider through
 * an endpoint file, `$SCOUT_HOME/etc/AI/nano.yaml`, which is also the
 * configured default endpoint.
 *
 * The README runs top to bottom in one environment (later sections use what
 * earlier ones made, as a reader would); each help text runs alone in its
 * own. An example is either run (exit 0 required) or listed in NOT_RUN with
 * the reason: a new example that is neither fails the test. An example that is
 * not run still has its `workflow task`/`workflow mcp` task names checked
 * against the workflow it names.
 */
import assert from "node:assert/strict";
import {
  accessSync,
  constants,
  mkdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { BINARY, buildBinary, ROOT, runMain, runScout, tempDir } from "../support/cli.ts";
import { type RecordedRequest, startProviderServer } from "../support/provider_server.ts";

/** Examples that are not run, each with why (exact text, trailing comment removed). */
const NOT_RUN: Record<string, string> = {
  "tools/deno task build":
    "builds dist/scout-ai with Bun (~30 s); tests/e2e/*binary* tests run the same build command",
  "tools/deno task example":
    "runs the example society with its own loopback provider; tests/e2e/agents_example_test.ts runs it",
  "mkdir -p ~/.local/bin && cp dist/scout-ai ~/.local/bin/":
    "installs into the user's PATH; here scout-ai is put on PATH by the test itself",
  "scout-ai workflow task fixtures/workflows/Baking broken":
    "the task fails by design (it shows what an error job looks like); tests/workflow cover it",
  "scout-ai workflow task fixtures/workflows/Baking broken --json | jq .path":
    "the task fails by design, so the command exits 1 after printing the JSON",
  "cd ~/.scout/var/ask":
    "cleans a relay queue by age: the README's session has no queue (its worker serves until Ctrl-C)",
  "find . -mindepth 2 -maxdepth 2 -name '*.json' -mtime +30 \\( -path './reply/*' -o -path './response/*' -o -path './failed/*' \\) -delete":
    "part of the queue-cleaning recipe (not run: there is no queue here, see above)",
  "find . -maxdepth 1 -name '[0-9a-f]*.json' -mtime +1 -delete":
    "part of the queue-cleaning recipe (not run: there is no queue here, see above)",
  "scout-ai workflow mcp fixtures/workflows/Baking whisk cake --http 8808":
    "serves until Ctrl-C; tests/e2e/mcp_test.ts serves over HTTP and lists/calls the tools",
};

/** The README's first block: set-up + the example session, and the gate (checked, not run here). */
const FIRST_BLOCK = [
  "tools/setup && tools/deno task scout llm prov fixtures/provenance/society/plan.chat --jobs-dir fixtures/provenance/society/jobs",
  "tools/deno task ok",
];

interface Example {
  /** Where it is written (README.md line, or the help command). */
  where: string;
  /** The command line as written. */
  command: string;
}

/** The command of an example line without a trailing `# comment` (outside quotes). */
function withoutComment(line: string): string {
  let quote = "";
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote !== "") {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = "";
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i).trimEnd();
  }
  return line.trimEnd();
}

/** The ```sh blocks of a markdown text, as lists of example lines (blank and comment lines dropped). */
function shBlocks(markdown: string, file: string): Example[][] {
  const blocks: Example[][] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== "```sh") continue;
    const block: Example[] = [];
    for (i++; i < lines.length && lines[i]!.trim() !== "```"; i++) {
      let command = lines[i]!;
      const at = i + 1;
      while (command.endsWith("\\") && i + 1 < lines.length) {
        command = command.slice(0, -1) + lines[++i]!;
      }
      command = withoutComment(command.trim());
      if (command !== "") block.push({ where: `${file}:${at}`, command });
    }
    blocks.push(block);
  }
  return blocks;
}

/** The lines of a help text's "Examples:" section. */
function helpExamples(help: string, where: string): Example[] {
  const m = /^Examples\b.*:\n((?: {2}.*\n?)+)/m.exec(help);
  // a heading the pattern misses would skip its examples silently
  assert.equal(m === null, !/^Examples/m.test(help), `${where}: unreadable Examples section`);
  if (m === null) return [];
  const out: Example[] = [];
  const lines = m[1]!.split("\n");
  for (let i = 0; i < lines.length; i++) {
    let command = lines[i]!.trim();
    while (command.endsWith("\\") && i + 1 < lines.length) {
      command = command.slice(0, -1) + lines[++i]!.trim();
    }
    command = withoutComment(command);
    if (command !== "") out.push({ where, command });
  }
  return out;
}

/** Subcommand names listed in a help text's "Commands:" section (without `help`). */
function subcommands(help: string): string[] {
  const m = /^Commands:\n((?: {2}.*\n?)+)/m.exec(help);
  if (m === null) return [];
  return m[1]!.split("\n").map((l) => /^ {2}(\S+)/.exec(l)?.[1]).filter((n): n is string =>
    n !== undefined && n !== "help"
  );
}

/** A fresh "clone root" with HOME, SCOUT_HOME, the endpoint file and scout-ai on PATH. */
interface Sandbox extends AsyncDisposable {
  cwd: string;
  env: Record<string, string>;
}

/**
 * A fresh sandbox. `SCOUT_HOME` is `~/.scout`, or with `shared` a directory
 * outside HOME (as on a shared file system), so an example that writes
 * `~/.scout` where it means `$SCOUT_HOME` fails.
 */
async function sandbox(providerUrl: string, opts: { shared?: boolean } = {}): Promise<Sandbox> {
  const dir = await tempDir("scout-docs-");
  const cwd = join(dir.path, "clone");
  const home = join(dir.path, "home");
  const bin = join(dir.path, "bin");
  mkdirSync(cwd);
  mkdirSync(bin);
  const cp = await new Deno.Command("cp", { args: ["-r", join(ROOT, "fixtures"), cwd] }).output();
  assert.equal(cp.code, 0, new TextDecoder().decode(cp.stderr));
  const git = await new Deno.Command("git", { args: ["init", "-q", cwd] }).output();
  assert.equal(git.code, 0, new TextDecoder().decode(git.stderr));
  // `scout-ai` on PATH is the binary, as for a reader who downloaded it
  await buildBinary();
  symlinkSync(BINARY, join(bin, "scout-ai"));
  const scoutHome = opts.shared ? join(dir.path, "shared", "scout") : join(home, ".scout");
  mkdirSync(join(scoutHome, "etc", "AI"), { recursive: true });
  writeFileSync(
    join(scoutHome, "etc", "AI", "nano.yaml"),
    `backend: openai\nmodel: loopback-model\nurl: ${providerUrl}/v1\n`,
  );
  const env: Record<string, string> = {
    PATH: `${bin}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
    HOME: home,
    SCOUT_HOME: scoutHome,
    NO_COLOR: "1",
    LANG: "C.UTF-8",
    DENO_DIR: Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "/root", ".cache", "deno"),
    GIT_CONFIG_NOSYSTEM: "1",
  };
  const set = await runMain(["config", "set", "endpoint", "nano", "ask"], { cwd, env });
  assert.equal(set.code, 0, set.stderr);
  // an earlier run's jobs, with other inputs: an example naming a job must name it alone,
  // however many jobs its task has (R110-6)
  const earlier = ["workflow", "task", "fixtures/workflows/Baking", "cake", "--eggs", "7"];
  const ran = await runMain(earlier, { cwd, env });
  assert.equal(ran.code, 0, ran.stderr);
  return { cwd, env, [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose]() };
}

/**
 * The workflows and tasks an example names in its `scout-ai workflow task WF
 * TASK` and `scout-ai workflow mcp WF TASK…` commands (the words after the
 * subcommand up to the first option, redirection or shell operator).
 */
function namedTasks(command: string): { workflow: string; tasks: string[] }[] {
  const out: { workflow: string; tasks: string[] }[] = [];
  for (const segment of command.split(/\|\||&&|[|;]/)) {
    const words = segment.trim().split(/\s+/);
    const at = words.findIndex((w, i) =>
      w === "scout-ai" && words[i + 1] === "workflow" &&
      (words[i + 2] === "task" || words[i + 2] === "mcp")
    );
    if (at === -1) continue;
    const positional: string[] = [];
    for (const w of words.slice(at + 3)) {
      if (/^[-<>]|^\d*>/.test(w)) break;
      positional.push(w);
    }
    const [workflow, ...tasks] = positional;
    if (workflow === undefined) continue;
    out.push({ workflow, tasks: words[at + 2] === "task" ? tasks.slice(0, 1) : tasks });
  }
  return out;
}

/** Runs one example; returns why it failed, or null. */
async function runExample(ex: Example, box: Sandbox): Promise<string | null> {
  const out = await new Deno.Command("bash", {
    args: ["-c", `set -o pipefail\n${ex.command}`],
    cwd: box.cwd,
    env: box.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(120_000),
  }).output();
  const dec = new TextDecoder();
  // a warning means the example does not show what it says (e.g. unresolved jobs)
  const warned = /warning:/.test(dec.decode(out.stderr));
  if (out.code === 0 && !warned) return null;
  return `${ex.where}: \`${ex.command}\` exited ${out.code}${
    warned ? " with a warning" : ""
  }\n  stdout: ${dec.decode(out.stdout).slice(0, 1500)}\n  stderr: ${
    dec.decode(out.stderr).slice(0, 1500)
  }`;
}

/** Runs examples in order, skipping NOT_RUN; returns the failures. */
async function runAll(examples: Example[], box: Sandbox): Promise<string[]> {
  const failures: string[] = [];
  for (const ex of examples) {
    if (ex.command in NOT_RUN) continue;
    const failed = await runExample(ex, box);
    if (failed !== null) failures.push(failed);
  }
  return failures;
}

/** Answers like a model: JSON when a JSON reply is asked for, else an echo of the question. */
function modelReply(r: RecordedRequest) {
  const body = JSON.stringify(r.body);
  if (/json_object|json_schema/.test(body)) {
    return { text: '{"name": "Ada", "age": 36, "primes": [2, 3, 5]}' };
  }
  return { text: "A short answer from the loopback model." };
}

async function collectHelp(box: Sandbox): Promise<{ where: string; help: string }[]> {
  const out: { where: string; help: string }[] = [];
  const visit = async (path: string[]) => {
    const r = await runMain([...path, "--help"], { cwd: box.cwd, env: box.env });
    assert.equal(r.code, 0, r.stderr);
    out.push({ where: ["scout-ai", ...path, "--help"].join(" "), help: r.stdout });
    for (const sub of subcommands(r.stdout)) await visit([...path, sub]);
  };
  await visit([]);
  // the help of each task of the bundled workflow (generated from its definition)
  const wf = "fixtures/workflows/Baking";
  const tasks = await runMain(["workflow", "task", wf, "--help"], { cwd: box.cwd, env: box.env });
  const names = [...tasks.stdout.matchAll(/^ {2}(\w+) /gm)].map((m) => m[1]!);
  assert.ok(names.length >= 3, tasks.stdout);
  for (const t of names) {
    const args = ["workflow", "task", wf, t, "--help"];
    const r = await runMain(args, { cwd: box.cwd, env: box.env });
    assert.equal(r.code, 0, r.stderr);
    out.push({ where: `scout-ai ${args.join(" ")}`, help: r.stdout });
  }
  return out;
}

Deno.test("docs: the README's first block (set-up + example session, the gate) is still right", async () => {
  const blocks = shBlocks(readFileSync(join(ROOT, "README.md"), "utf8"), "README.md");
  assert.deepEqual(blocks[0]!.map((e) => e.command), FIRST_BLOCK);
  accessSync(join(ROOT, "tools", "setup"), constants.X_OK);
  const tasks = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8")).tasks;
  assert.match(tasks.ok, /deno fmt --check && deno task lint && deno task check && deno task test/);
  assert.match(readFileSync(join(ROOT, ".ci", "run"), "utf8"), /^tools\/deno task ok /m);
  // the part after tools/setup, as written, from the root (tools/deno task scout = cli.ts)
  const args = FIRST_BLOCK[0]!.split(" && ")[1]!.split(" ");
  assert.deepEqual(args.slice(0, 3), ["tools/deno", "task", "scout"]);
  assert.equal(tasks.scout, "deno run -q -A cli.ts");
  const r = await runScout(args.slice(3), { cwd: ROOT });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^chat total=1\.7K .* plan\.chat$/m);
  assert.match(r.stdout, /job total=1\.7K .* Planner\/ask cefe35d2/);
  assert.match(
    r.stdout,
    /Librarian · _oneshot-1/,
  );
  assert.equal(r.stderr, "", "the first-screen example has no warnings");
});

Deno.test("docs: every README example runs as written, top to bottom, in a fresh clone", async () => {
  await using srv = await startProviderServer({ fallback: modelReply });
  // SCOUT_HOME outside HOME, as the README recommends on shared file systems
  await using box = await sandbox(srv.url, { shared: true });
  const blocks = shBlocks(readFileSync(join(ROOT, "README.md"), "utf8"), "README.md");
  const examples = blocks.slice(1).flat();
  assert.ok(examples.length >= 20, `only ${examples.length} README examples found`);
  const failures = await runAll(examples, box);
  assert.deepEqual(failures, [], failures.join("\n"));
  assert.ok(srv.requests.length > 0, "the model examples reached the loopback provider");
  for (const r of srv.requests) assert.match(r.path, /^\/v1\//);
});

Deno.test("docs: every --help example runs as written, each help on its own", async () => {
  await using srv = await startProviderServer({ fallback: modelReply });
  let helps: { where: string; help: string }[];
  {
    await using box = await sandbox(srv.url);
    helps = await collectHelp(box);
  }
  const failures: string[] = [];
  let count = 0;
  for (const { where, help } of helps) {
    const examples = helpExamples(help, where);
    count += examples.length;
    if (examples.length === 0) continue;
    // SCOUT_HOME outside HOME too: an example that writes ~/.scout for $SCOUT_HOME fails
    await using box = await sandbox(srv.url, { shared: true });
    failures.push(...await runAll(examples, box));
  }
  assert.ok(count >= 30, `only ${count} help examples found`);
  assert.deepEqual(failures, [], failures.join("\n"));
});

Deno.test("docs: every NOT_RUN entry is still an example somewhere", async () => {
  await using srv = await startProviderServer({ fallback: modelReply });
  await using box = await sandbox(srv.url);
  const all = new Set<string>();
  for (const b of shBlocks(readFileSync(join(ROOT, "README.md"), "utf8"), "README.md")) {
    for (const e of b) all.add(e.command);
  }
  for (const { where, help } of await collectHelp(box)) {
    for (const e of helpExamples(help, where)) all.add(e.command);
  }
  for (const k of Object.keys(NOT_RUN)) {
    assert.ok(all.has(k), `NOT_RUN lists "${k}", no doc has it`);
  }
});

Deno.test("docs: namedTasks reads the workflow and tasks of task and mcp examples", () => {
  assert.deepEqual(namedTasks("scout-ai workflow task fixtures/workflows/Baking cake --eggs 3"), [
    { workflow: "fixtures/workflows/Baking", tasks: ["cake"] },
  ]);
  assert.deepEqual(namedTasks("scout-ai workflow mcp W whisk cake --http 8808"), [
    { workflow: "W", tasks: ["whisk", "cake"] },
  ]);
  assert.deepEqual(namedTasks("scout-ai workflow mcp W < /dev/null"), [{
    workflow: "W",
    tasks: [],
  }]);
  assert.deepEqual(namedTasks("cd x && scout-ai workflow task W t --json | jq .path"), [
    { workflow: "W", tasks: ["t"] },
  ]);
  assert.deepEqual(namedTasks("scout-ai workflow info W/t/Default"), []);
});

Deno.test("docs: every task a not-run example names is a task of the workflow it names", async () => {
  await using srv = await startProviderServer({ fallback: modelReply });
  await using box = await sandbox(srv.url);
  const examples: Example[] = [];
  for (const b of shBlocks(readFileSync(join(ROOT, "README.md"), "utf8"), "README.md")) {
    examples.push(...b);
  }
  for (const { where, help } of await collectHelp(box)) examples.push(...helpExamples(help, where));
  const tasksOf = new Map<string, string[]>();
  const problems: string[] = [];
  let checked = 0;
  for (const ex of examples.filter((e) => e.command in NOT_RUN)) {
    for (const { workflow, tasks } of namedTasks(ex.command)) {
      if (!tasksOf.has(workflow)) {
        const r = await runMain(["workflow", "list", workflow, "--json"], box);
        assert.equal(r.code, 0, `${ex.where}: workflow ${workflow}: ${r.stderr}`);
        tasksOf.set(workflow, JSON.parse(r.stdout).tasks.map((t: { name: string }) => t.name));
      }
      for (const t of tasks) {
        checked++;
        if (!tasksOf.get(workflow)!.includes(t)) {
          problems.push(`${ex.where}: \`${ex.command}\` names task "${t}", not in ${workflow}`);
        }
      }
    }
  }
  assert.ok(checked >= 3, `only ${checked} task names checked`);
  assert.deepEqual(problems, [], problems.join("\n"));
});
