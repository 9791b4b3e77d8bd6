/**
 * The set-up of the completion tests (`completion_test.ts` for bash,
 * `completion_zsh_test.ts`, `completion_fish_test.ts`): a project with a
 * workflow, an endpoint and agents on the search roots, a `scout-ai` on PATH that runs
 * the source entry (the scripts call it back for names), and the script
 * `scout-ai completion <shell>` printed there, which the real shell loads.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DENO, runScout, SCOUT_SOURCE_ARGS } from "../support/cli.ts";
import { buildProgram } from "../../src/cli/main.ts";
import { bufferIo } from "../support/buffer_io.ts";
import { commandTree } from "../../src/cli/completion_tree.ts";
import { backendNames } from "../../src/llm/registry.ts";

/** The workflow `Kitchen`: `plate` takes `--garnish` and, through `sear`, `--heat`. */
export const WORKFLOW = `export default (api) =>
  api.workflow("Kitchen", {
    description: "test kitchen",
    tasks: {
      simmer: { type: "string", description: "simmer", inputs: {}, run: () => "s" },
      sear: {
        type: "string",
        description: "sear",
        inputs: { heat: api.input.integer({ default: 3 }) },
        run: () => "x",
      },
      plate: {
        type: "string",
        description: "plate",
        inputs: { garnish: api.input.string({}) },
        deps: ["sear"],
        run: () => "p",
      },
    },
  });
`;

/**
 * The agents of {@link project}, as `agent list` finds them: `Hermit` under
 * `$SCOUT_HOME/Agent`, `Planner` and the Ruby-only `Rubyist` under `./Agent`,
 * and `Kitchen`, whose `workflows/Kitchen` is an agent directory too.
 */
export const AGENTS = ["Hermit", "Kitchen", "Planner", "Rubyist"];

/** The shells a script is printed for. */
export type Shell = "bash" | "zsh" | "fish";

/** A completion project: the env to run the shell with, the script's path, the cwd. */
export interface Project {
  /** `SCOUT_HOME`, `PATH` with the `scout-ai` wrapper first, `HOME` in the temp dir. */
  env: Record<string, string>;
  /** The generated script. */
  script: string;
  /** The project directory (`./workflows/Kitchen`, `./Agent/Planner`). */
  cwd: string;
}

/**
 * Lays out the project in `dir` and writes `scout-ai completion <shell>`'s
 * script there (printed by the source entry, run from the project).
 *
 * @param dir a temporary directory
 * @param shell the shell to print the script for
 * @returns the env, the script's path and the project directory
 */
export async function project(dir: string, shell: Shell = "bash"): Promise<Project> {
  const cwd = join(dir, "proj");
  await Deno.mkdir(join(cwd, "workflows", "Kitchen"), { recursive: true });
  await Deno.writeTextFile(join(cwd, "workflows", "Kitchen", "workflow.ts"), WORKFLOW);
  await Deno.mkdir(join(dir, "home", "etc", "AI"), { recursive: true });
  await Deno.writeTextFile(join(dir, "home", "etc", "AI", "fastbot.yaml"), "backend: ollama\n");
  const agentFiles = [
    [join(dir, "home", "Agent", "Hermit"), "start_chat"],
    [join(cwd, "Agent", "Planner"), "start_chat"],
    [join(cwd, "Agent", "Rubyist"), "agent.rb"], // Ruby's files only: agent list shows it
  ];
  for (const [agentDir, file] of agentFiles) {
    await Deno.mkdir(agentDir!, { recursive: true });
    await Deno.writeTextFile(join(agentDir!, file!), "system: be brief\n");
  }
  await Deno.mkdir(join(cwd, "Agent", "Empty")); // no agent files: not an agent
  await Deno.mkdir(join(dir, "bin"));
  const wrapper = join(dir, "bin", "scout-ai");
  const args = [DENO, ...SCOUT_SOURCE_ARGS].map((a) => `'${a}'`).join(" ");
  await Deno.writeTextFile(wrapper, `#!/bin/sh\nexec ${args} "$@"\n`);
  await Deno.chmod(wrapper, 0o755);
  const env = {
    SCOUT_HOME: join(dir, "home"),
    PATH: `${join(dir, "bin")}:${Deno.env.get("PATH")}`,
    // zsh's compinit dump and fish's variables go here, not in the user's home
    HOME: dir,
  };
  const r = await runScout(["completion", shell], { env, cwd });
  assert.equal(r.code, 0, r.stderr);
  const script = join(dir, `scout-ai.${shell}`);
  await Deno.writeTextFile(script, r.stdout);
  return { env, script, cwd };
}

/**
 * Fails (one line) when `shell` is not installed: the completion tests load
 * the scripts in the real shells, which `tools/setup` installs from Debian.
 *
 * @param shell the shell's command
 */
export function needShell(shell: Shell): void {
  try {
    new Deno.Command(shell, { args: ["-c", "exit 0"], stdout: "null", stderr: "null" })
      .outputSync();
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
    assert.fail(`${shell} is not installed (Debian package ${shell}; tools/setup installs it)`);
  }
}

/**
 * Runs `cmd args` in `p.cwd` with `p.env`, stopped after `ms`; asserts it
 * exited 0.
 *
 * @returns its stdout and stderr
 */
export async function runShell(
  p: Project,
  cmd: string,
  args: string[],
  ms = 300_000,
): Promise<{ stdout: string; stderr: string }> {
  const out = await new Deno.Command(cmd, {
    args,
    cwd: p.cwd,
    env: p.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(ms),
  }).output();
  const dec = new TextDecoder();
  const [stdout, stderr] = [dec.decode(out.stdout), dec.decode(out.stderr)];
  assert.equal(out.code, 0, `${cmd} exited ${out.code}: ${stderr}\n${stdout}`);
  return { stdout, stderr };
}

/**
 * Compares the matches a shell offered for each case's line (`got`, one line
 * of output per case) and what it printed on stderr (nothing: a completion
 * must not write over the command line) with the cases' expectations.
 *
 * @param cases lines and their expected matches, sorted
 * @param out the shell's output
 */
export function assertMatches(
  cases: [string, string][],
  out: { stdout: string; stderr: string },
): void {
  const got = out.stdout.split("\n");
  assert.equal(got.length, cases.length + 1, out.stdout);
  assert.deepEqual(
    [...cases.map(([line], i) => [line, sorted(got[i]!)]), ["(stderr)", out.stderr]],
    [...cases.map(([line, want]) => [line, want]), ["(stderr)", ""]],
  );
}

/**
 * The long options `scout-ai <path> --<TAB>` offers: the command's own, then
 * the program's (global) ones, as the command tree has them.
 *
 * @param path the command path (`["workflow", "task"]`)
 * @returns the `--flags`
 */
export function longOptions(path: string[]): string[] {
  const specs = commandTree(
    buildProgram({ io: bufferIo(), exitCode: 0, debug: false, logLevel: 5 }),
  );
  const at = specs.find((s) => s.path.join(" ") === path.join(" "));
  assert.ok(at, `no command ${path.join(" ")}`);
  return [...new Set([...at.options, ...specs[0]!.options].flatMap((o) => o.flags))]
    .filter((f) => f.startsWith("--"));
}

/** The words of a line of matches, sorted (shells order them by their own collation). */
export function sorted(line: string): string {
  return line.split(" ").filter((w) => w !== "").sort().join(" ");
}

/**
 * Lines each shell completes (TAB at the end) and the matches expected,
 * sorted: subcommands, a nested command's option, and option and argument
 * values named on disk (workflows, a workflow's tasks, endpoints) or by the
 * program (backends); an option's value (`--log 3`) is not a command word.
 */
export function nameCases(): [string, string][] {
  return [
    ["scout-ai wor", "workflow"],
    ["scout-ai --log 3 wor", "workflow"],
    ["scout-ai workflow t", "task"],
    ["scout-ai llm ask --stre", "--stream"],
    ["scout-ai workflow task Ki", "Kitchen"],
    ["scout-ai workflow list ", "ChatAnalyst Kitchen"],
    ["scout-ai llm ask -w Ki", "Kitchen"],
    ["scout-ai workflow task Kitchen s", "sear simmer"],
    ["scout-ai workflow task Kitchen ", "plate sear simmer"],
    ["scout-ai --log 3 workflow task Kitchen pl", "plate"],
    ["scout-ai llm ask -e fa", "fastbot"],
    ["scout-ai llm ask --endpoint ", "fastbot"],
    ["scout-ai llm ask --backend oll", "ollama"],
    ["scout-ai llm ask -b ", sorted(backendNames().join(" "))],
  ];
}

/**
 * Lines that end in an option word after `workflow task WORKFLOW TASK` and
 * the matches expected, sorted: the task's inputs and its dependencies'
 * (`completion --list inputs`) with the options; after `--` the inputs alone.
 */
export function inputCases(): [string, string][] {
  const all = [...longOptions(["workflow", "task"]), "--garnish", "--heat"];
  return [
    ["scout-ai workflow task Kitchen plate --", sorted(all.join(" "))],
    ["scout-ai workflow task Kitchen plate --g", "--garnish"],
    ["scout-ai workflow task Kitchen plate --heat 5 --ga", "--garnish"],
    ["scout-ai workflow task --jobname x Kitchen sear --h", "--heat"],
    ["scout-ai workflow task Kitchen plate -- --", "--garnish --heat"],
    ["scout-ai workflow task Kitchen simmer --g", ""],
    ["scout-ai workflow task Kitchen nope --g", ""],
    ["scout-ai workflow task Kitchen --g", ""],
  ];
}

/**
 * Lines that name an agent and the matches expected, sorted: `agent ask`,
 * `agent find` and `agent kb` complete the agents on the search roots
 * (`completion --list agents`), after options and their values too; after
 * the agent, `agent ask` completes its options.
 */
export function agentCases(): [string, string][] {
  return [
    ["scout-ai agent ask ", AGENTS.join(" ")],
    ["scout-ai agent ask P", "Planner"],
    ["scout-ai agent find H", "Hermit"],
    ["scout-ai agent kb R", "Rubyist"],
    ["scout-ai --log 3 agent ask -e fastbot Pl", "Planner"],
    ["scout-ai agent ask Planner --dry", "--dry-run"],
  ];
}
