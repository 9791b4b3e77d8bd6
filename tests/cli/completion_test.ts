import assert from "node:assert/strict";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { buildProgram } from "../../src/cli/main.ts";
import { bufferIo } from "../support/buffer_io.ts";
import { commandTree } from "../../src/cli/completion_tree.ts";
import { bashScript, fishScript, zshScript } from "../../src/cli/completion_scripts.ts";
import { LISTS } from "../../src/cli/completion.ts";
import { agentCases, AGENTS, project, sorted, WORKFLOW } from "./completion_support.ts";

/** Completes each line (words; the last is the one being completed) in one real bash. */
async function complete(
  dir: string,
  env: Record<string, string>,
  script: string,
  lines: string[][],
): Promise<string[]> {
  const calls = lines.map((words) => `t ${words.map((w) => `'${w}'`).join(" ")}`).join("\n");
  const program = `source '${script}'
complete -p scout-ai
t() { COMP_WORDS=("$@"); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _scout_ai; echo "\${COMPREPLY[*]}"; }
${calls}
`;
  const out = await new Deno.Command("bash", {
    args: ["--norc", "--noprofile", "-c", program],
    cwd: join(dir, "proj"),
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const [registration, ...results] = text.split("\n");
  assert.match(registration!, /^complete .*-F _scout_ai scout-ai$/);
  return results.slice(0, lines.length);
}

Deno.test("bash loads the script and completes commands, workflows, task and endpoint names", async () => {
  await using dir = await tempDir();
  const { env, script } = await project(dir.path);
  const got = await complete(dir.path, env, script, [
    ["scout-ai", "wor"],
    ["scout-ai", "workflow", "t"],
    ["scout-ai", "workflow", "task", "Ki"],
    ["scout-ai", "workflow", "task", "Kitchen", "s"],
    ["scout-ai", "workflow", "task", "Kitchen", ""],
    ["scout-ai", "--log", "3", "workflow", "task", "Kitchen", "pl"],
    ["scout-ai", "llm", "ask", "-e", "fa"],
    ["scout-ai", "llm", "ask", "--stre"],
    ["scout-ai", "workflow", "task", "Nope", ""],
  ]);
  assert.deepEqual(got, [
    "workflow",
    "task",
    "Kitchen",
    "simmer sear",
    "simmer sear plate",
    "plate",
    "fastbot",
    "--stream",
    "", // an unknown workflow completes to nothing (bash then offers files)
  ]);
});

Deno.test("bash completes agent names for agent ask, find and kb; after the agent, ask's options", async () => {
  await using dir = await tempDir();
  const { env, script } = await project(dir.path);
  const cases: [string, string][] = [
    ...agentCases(),
    ["scout-ai agent ask Planner ", ""], // the question: no names (bash then offers files)
  ];
  // a line's words; the last is the one completed ("" after a trailing space)
  const got = await complete(dir.path, env, script, cases.map(([line]) => line.split(" ")));
  assert.deepEqual(cases.map(([line], i) => [line, sorted(got[i]!)]), cases);
});

Deno.test("completion --list agents names the agents agent list finds: every root, Ruby-only ones too", async () => {
  await using dir = await tempDir();
  const { env, cwd } = await project(dir.path);
  const listed = async () =>
    (await runMain(["completion", "--list", "agents"], { cwd, env })).stdout;
  const agentList = async () => {
    const r = await runMain(["agent", "list", "--json"], { cwd, env });
    return JSON.parse(r.stdout).agents.map((a: { name: string }) => a.name + "\n").join("");
  };
  assert.equal(await listed(), AGENTS.map((a) => a + "\n").join(""));
  // a root of SCOUT_AGENT_PATH, as agent list reads it
  await Deno.mkdir(join(dir.path, "more", "Agent", "Scribe"), { recursive: true });
  await Deno.writeTextFile(join(dir.path, "more", "Agent", "Scribe", "workflow.rb"), "");
  env.SCOUT_AGENT_PATH = join(dir.path, "more");
  assert.match(await listed(), /^Planner\nRubyist\nScribe\n$/m);
  assert.equal(await listed(), await agentList());
  // none on the roots: nothing, exit 0
  const empty = await runMain(["completion", "--list", "agents"], {
    cwd: dir.path,
    env: { SCOUT_HOME: join(dir.path, "nohome"), HOME: dir.path },
  });
  assert.deepEqual([empty.code, empty.stdout, empty.stderr], [0, "", ""]);
});

Deno.test("bash completes a task's inputs after WORKFLOW TASK, with the options; after -- the inputs alone (R110-2)", async () => {
  await using dir = await tempDir();
  const { env, script } = await project(dir.path);
  const got = await complete(dir.path, env, script, [
    ["scout-ai", "workflow", "task", "Kitchen", "plate", "--"],
    ["scout-ai", "workflow", "task", "Kitchen", "plate", "--g"],
    ["scout-ai", "workflow", "task", "Kitchen", "plate", "--heat", "5", "--ga"],
    ["scout-ai", "workflow", "task", "--jobname", "x", "Kitchen", "sear", "--h"],
    ["scout-ai", "workflow", "task", "Kitchen", "plate", "--", "--"],
    ["scout-ai", "workflow", "task", "Kitchen", "simmer", "--g"],
    ["scout-ai", "workflow", "task", "Kitchen", "nope", "--g"],
    ["scout-ai", "workflow", "task", "Kitchen", "--g"],
  ]);
  // the command's options and the global ones, then its own input and its dependency's
  const [all, ...rest] = got;
  assert.deepEqual(all!.split(" ").slice(0, 2), ["--jobname", "--clean"]);
  assert.ok(all!.includes(" --json ") && all!.includes(" --debug "), all);
  assert.ok(all!.endsWith(" --nobar --garnish --heat"), all);
  assert.deepEqual(rest, [
    "--garnish",
    "--garnish",
    "--heat",
    "--garnish --heat",
    "", // simmer has no inputs; an unknown task has none either
    "",
    "", // no TASK yet: no inputs
  ]);
});

Deno.test("the zsh script names no variable path or words: zsh ties path to PATH, and the calls back found no binary (R110-2)", () => {
  const program = buildProgram({ io: bufferIo(), exitCode: 0, debug: false, logLevel: 5 });
  const script = zshScript(commandTree(program));
  assert.match(script, /completion --list inputs/);
  assert.doesNotMatch(script, /\blocal\b[^\n]*\b(path|words)\b/);
  assert.doesNotMatch(script, /(^|[\s;(])(path|words)(\+?=)/m);
  // fish calls the inputs back too, after WORKFLOW TASK
  assert.match(
    fishScript(commandTree(program)),
    /completion --list inputs \$words\[3\] \$words\[4\]/,
  );
});

Deno.test("completion --list names what is on the search roots, and nothing for an unknown workflow", async () => {
  await using dir = await tempDir();
  const { env } = await project(dir.path);
  const cwd = join(dir.path, "proj");
  const list = async (...args: string[]) => {
    const r = await runMain(["completion", "--list", ...args], { cwd, env });
    return { code: r.code, out: r.stdout };
  };
  // the built-in ChatAnalyst too (R110-9), once when a directory has a workflow of that name
  assert.deepEqual(await list("workflows"), { code: 0, out: "Kitchen\nChatAnalyst\n" });
  await Deno.mkdir(join(cwd, "workflows", "ChatAnalyst"));
  await Deno.writeTextFile(join(cwd, "workflows", "ChatAnalyst", "workflow.ts"), WORKFLOW);
  assert.deepEqual(await list("workflows"), { code: 0, out: "ChatAnalyst\nKitchen\n" });
  assert.deepEqual(await list("tasks", "Kitchen"), { code: 0, out: "simmer\nsear\nplate\n" });
  assert.deepEqual(await list("tasks", "Nope"), { code: 0, out: "" });
  // a task's inputs, its dependencies' too, as `workflow task` takes them (R110-2)
  assert.deepEqual(await list("inputs", "Kitchen", "plate"), {
    code: 0,
    out: "--garnish\n--heat\n",
  });
  assert.deepEqual(await list("inputs", "Kitchen", "simmer"), { code: 0, out: "" });
  assert.deepEqual(await list("inputs", "Kitchen", "nope"), { code: 0, out: "" });
  assert.deepEqual(await list("inputs", "Nope", "plate"), { code: 0, out: "" });
  assert.equal((await list("inputs", "Kitchen")).code, 2);
  assert.deepEqual(await list("endpoints"), { code: 0, out: "fastbot\n" });
  assert.equal((await list("nonsense")).code, 2);
});

Deno.test("completion --help documents the --list it mentions, with every kind the code lists", async () => {
  const r = await runMain(["completion", "--help"]);
  assert.equal(r.code, 0);
  const options = /^Options:\n((?: {2}.*\n?)+)/m.exec(r.stdout)?.[1] ?? "";
  assert.match(options, /^ {2}--list <kind> +print the names TAB completes/m);
  for (const kind of LISTS) assert.match(options.replace(/\s+/g, " "), new RegExp(`\\b${kind}\\b`));
  assert.match(options.replace(/\s+/g, " "), /tasks WORKFLOW/);
  assert.match(options.replace(/\s+/g, " "), /inputs WORKFLOW TASK/);
  assert.match(r.stdout, /^ {2}scout-ai completion --list tasks \S+$/m); // an example, run by docs tests
});

Deno.test("the scripts follow the program: a command added to it is completed without editing", () => {
  const program = buildProgram({ io: bufferIo(), exitCode: 0, debug: false, logLevel: 5 });
  const before = bashScript(commandTree(program));
  assert.doesNotMatch(before, /zebra/);
  program.command("zebra").option("--stripes <n>", "how many").option("--agent <name>", "who");
  const specs = commandTree(program);
  assert.match(bashScript(specs), /'zebra'\) echo '--stripes/);
  // an option named for what it takes completes it: --agent to the agents
  assert.match(bashScript(specs), /'zebra\|--agent'\) echo 'agent'/);
  assert.match(fishScript(specs), /-l agent -x -a '\(scout-ai completion --list agents /);
  assert.match(bashScript(specs), /'' *\) echo '.*\bzebra\b/);
  assert.match(fishScript(specs), /-a 'zebra'/);
});

Deno.test("completion with an unknown shell is a usage error; zsh and fish scripts print", async () => {
  for (const shell of ["zsh", "fish"]) {
    const r = await runMain(["completion", shell]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, shell === "zsh" ? /bashcompinit/ : /complete -c scout-ai/);
  }
  const r = await runMain(["completion", "tcsh"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown shell "tcsh"/);
});
