/**
 * `scout-ai completion bash|zsh|fish`: prints a completion script generated
 * from the command tree, and `completion --list workflows|tasks <WF>|inputs
 * <WF> <TASK>|endpoints|backends|agents`, which the scripts call back for
 * names found on the search roots (documented: scripts of your own may use it too).
 *
 * @module
 */
import { type Command, Option } from "@commander-js/extra-typings";
import { usageError } from "../errors.ts";
import type { CliContext } from "./context.ts";
import type { Io } from "./io.ts";
import { FIXTURE_EXAMPLES } from "./help_text.ts";
import { fittedHelp } from "./help_layout.ts";

/** The shells a script can be printed for. */
export const SHELLS = ["bash", "zsh", "fish"] as const;

/** What `completion --list` can list. */
export const LISTS = ["workflows", "tasks", "inputs", "endpoints", "backends", "agents"] as const;

/** A list's name with the arguments it takes, as `--help` shows it. */
const LIST_USAGE: Partial<Record<typeof LISTS[number], string>> = {
  tasks: "tasks WORKFLOW",
  inputs: "inputs WORKFLOW TASK",
};

/**
 * Names for the completion scripts, one per line: workflows (on the search
 * roots, then the built-in ones) and endpoints on the search roots, the
 * tasks of a workflow, the input options of a task (`--eggs`: its own and
 * its dependencies', as `workflow task` takes them), the backend names, the
 * agents (`agent list`'s names: the same walk of the agent search roots). Lists
 * nothing (exit 0) for a workflow or task that does not load: completion
 * stays quiet.
 *
 * @param kind one of {@link LISTS}
 * @param args the workflow (for `tasks`), the workflow and task (for `inputs`)
 * @param io injected I/O
 * @returns exit code
 */
export async function runCompletionList(
  kind: string,
  args: readonly string[],
  io: Io,
): Promise<number> {
  const opts = { cwd: io.cwd, env: io.env };
  const [arg, task] = args;
  let names: string[] = [];
  if (kind === "workflows") {
    const [{ listWorkflowFiles }, { builtinWorkflowNames }] = await Promise.all([
      import("../workflow/load.ts"),
      import("../workflow/builtins.ts"),
    ]);
    // the built-in ones too (ChatAnalyst), once: a directory's workflow of that name wins
    names = [
      ...new Set([...listWorkflowFiles(opts).map((w) => w.name), ...builtinWorkflowNames()]),
    ];
  } else if (kind === "tasks") {
    if (arg === undefined) throw usageError("completion --list tasks needs a workflow");
    const { loader } = await import("./workflow_common.ts");
    const { loadWorkflow } = await loader();
    try {
      names = Object.keys((await loadWorkflow(arg, opts)).tasks);
    } catch {
      names = [];
    }
  } else if (kind === "inputs") {
    if (arg === undefined || task === undefined) {
      throw usageError("completion --list inputs needs a workflow and a task");
    }
    names = await inputFlags(arg, task, opts);
  } else if (kind === "endpoints") {
    const { listEndpointFiles } = await import("../config/endpoints.ts");
    names = listEndpointFiles(opts).map((e) => e.name);
  } else if (kind === "backends") {
    const { backendNames } = await import("../llm/registry.ts");
    names = backendNames();
  } else if (kind === "agents") {
    const { agentNames } = await import("../agent/find.ts");
    names = agentNames(opts); // agent list's names; no warn: an unreadable root stays quiet
  } else {
    throw usageError(`completion --list: unknown list "${kind}" (one of ${LISTS.join(", ")})`);
  }
  if (names.length > 0) io.stdout.write(names.join("\n") + "\n");
  return 0;
}

/** `--<input>` for each input `workflow task WF TASK` takes; none when it does not load. */
async function inputFlags(
  workflow: string,
  task: string,
  opts: { cwd: string; env: Io["env"] },
): Promise<string[]> {
  const { loader } = await import("./workflow_common.ts");
  const [{ loadWorkflow }, { recursiveInputs }] = await Promise.all([
    loader(),
    import("../workflow/define.ts"),
  ]);
  try {
    return recursiveInputs(await loadWorkflow(workflow, opts), task).map((i) => `--${i.name}`);
  } catch {
    return [];
  }
}

/**
 * Prints the completion script for `shell`.
 *
 * @param program the root program (walked for commands and options)
 * @param shell bash, zsh or fish
 * @param io injected I/O
 * @returns exit code
 */
export async function runCompletionScript(
  program: Command,
  shell: string,
  io: Io,
): Promise<number> {
  const { commandTree } = await import("./completion_tree.ts");
  const scripts = await import("./completion_scripts.ts");
  const specs = commandTree(program);
  const make = { bash: scripts.bashScript, zsh: scripts.zshScript, fish: scripts.fishScript }[
    shell as typeof SHELLS[number]
  ];
  if (make === undefined) {
    throw usageError(`completion: unknown shell "${shell}" (one of ${SHELLS.join(", ")})`);
  }
  io.stdout.write(make(specs, program.name()));
  return 0;
}

/**
 * Registers `completion`.
 *
 * @param program the root program
 * @param ctx the invocation's context
 */
export function registerCompletion(program: Command, ctx: CliContext): void {
  program.command("completion")
    .description("print a shell completion script (bash, zsh or fish) for the whole command tree")
    .usage("[options] [shell] | --list <kind> [workflow] [task]")
    .argument("[shell]", "bash, zsh or fish")
    .argument("[workflow]", "with --list tasks or inputs: the workflow")
    .argument("[task]", "with --list inputs: the task")
    .addOption(
      new Option(
        "--list <kind>",
        `print the names TAB completes, one per line, instead of a script: ${
          LISTS.map((k) => LIST_USAGE[k] ?? k).join(", ")
        }`,
      ),
    )
    .addHelpText(
      "after",
      fittedHelp(
        "\nWorkflow, task and endpoint names come from the search roots when you press TAB\n" +
          "(./workflows, $SCOUT_HOME/workflows, ./etc/AI, $SCOUT_HOME/etc/AI), the built-in\n" +
          "workflows (ChatAnalyst) too; agent names are those 'agent list' shows (see\n" +
          "'agent find --help' for its search roots). After 'workflow task WORKFLOW TASK' a\n" +
          "word starting with - completes to the task's inputs (--eggs…) as well as the\n" +
          "options. --list prints the names TAB offers, for scripts of your own (nothing,\n" +
          "exit 0, for a workflow or task that does not load).\n\n" +
          `${FIXTURE_EXAMPLES}\n` +
          "  mkdir -p ~/.local/share/bash-completion/completions\n" +
          "  scout-ai completion bash > ~/.local/share/bash-completion/completions/scout-ai\n" +
          "  mkdir -p ~/.config/fish/completions\n" +
          "  scout-ai completion fish > ~/.config/fish/completions/scout-ai.fish\n" +
          "  scout-ai completion --list tasks fixtures/workflows/Baking\n" +
          "  scout-ai completion --list inputs fixtures/workflows/Baking cake\n\n" +
          "They install the script for bash (bash-completion loads it on demand) or fish,\n" +
          "and list names. Or put 'source <(scout-ai completion bash)' in ~/.bashrc; for zsh\n" +
          "put 'source <(scout-ai completion zsh)' in ~/.zshrc.",
      ),
    )
    .action(async (shell, workflow, task, opts) => {
      if (opts.list !== undefined) {
        const args = [shell, workflow, task].filter((a): a is string => a !== undefined);
        ctx.exitCode = await runCompletionList(opts.list, args, ctx.io);
        return;
      }
      if (shell === undefined) throw usageError("completion: name a shell (bash, zsh or fish)");
      ctx.exitCode = await runCompletionScript(program, shell, ctx.io);
    });
}
