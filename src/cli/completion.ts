/**
 * `scout-ai completion bash|zsh|fish`: prints a completion script generated
 * from the command tree, and `completion --list workflows|tasks
 * <WF>|endpoints|backends`, which the scripts call back for names found on
 * the search roots (documented: scripts of your own may use it too).
 *
 * @module
 */
import { type Command, Option } from "@commander-js/extra-typings";
import { usageError } from "../errors.ts";
import type { CliContext } from "./context.ts";
import type { Io } from "./io.ts";

/** The shells a script can be printed for. */
export const SHELLS = ["bash", "zsh", "fish"] as const;

/** What `completion --list` can list. */
export const LISTS = ["workflows", "tasks", "endpoints", "backends"] as const;

/**
 * Names for the completion scripts, one per line: workflows (on the search
 * roots, then the built-in ones) and endpoints on the search roots, the
 * tasks of a workflow, the backend names. Lists
 * nothing (exit 0) for a workflow that does not load: completion stays quiet.
 *
 * @param kind one of {@link LISTS}
 * @param arg the workflow (for `tasks`)
 * @param io injected I/O
 * @returns exit code
 */
export async function runCompletionList(
  kind: string,
  arg: string | undefined,
  io: Io,
): Promise<number> {
  const opts = { cwd: io.cwd, env: io.env };
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
  } else if (kind === "endpoints") {
    const { listEndpointFiles } = await import("../config/endpoints.ts");
    names = listEndpointFiles(opts).map((e) => e.name);
  } else if (kind === "backends") {
    const { backendNames } = await import("../llm/registry.ts");
    names = backendNames();
  } else {
    throw usageError(`completion --list: unknown list "${kind}" (one of ${LISTS.join(", ")})`);
  }
  if (names.length > 0) io.stdout.write(names.join("\n") + "\n");
  return 0;
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
    .usage("[options] [shell] | --list <kind> [workflow]")
    .argument("[shell]", "bash, zsh or fish")
    .argument("[workflow]", "with --list tasks: the workflow")
    .addOption(
      new Option(
        "--list <kind>",
        `print the names TAB completes, one per line, instead of a script: ${
          LISTS.map((k) => k === "tasks" ? "tasks WORKFLOW" : k).join(", ")
        }`,
      ),
    )
    .addHelpText(
      "after",
      "\nWorkflow, task and endpoint names come from the search roots when you press TAB\n" +
        "(./workflows, $SCOUT_HOME/workflows, ./etc/AI, $SCOUT_HOME/etc/AI). --list prints\n" +
        "the names TAB offers, for scripts of your own (nothing, exit 0, for a workflow that\n" +
        "does not load).\n\n" +
        "Examples (install for bash, loaded on demand by bash-completion, or fish; list names):\n" +
        "  mkdir -p ~/.local/share/bash-completion/completions\n" +
        "  scout-ai completion bash > ~/.local/share/bash-completion/completions/scout-ai\n" +
        "  mkdir -p ~/.config/fish/completions\n" +
        "  scout-ai completion fish > ~/.config/fish/completions/scout-ai.fish\n" +
        "  scout-ai completion --list tasks fixtures/workflows/Baking\n\n" +
        "Or put 'source <(scout-ai completion bash)' in ~/.bashrc; for zsh put\n" +
        "'source <(scout-ai completion zsh)' in ~/.zshrc.",
    )
    .action(async (shell, workflow, opts) => {
      if (opts.list !== undefined) {
        ctx.exitCode = await runCompletionList(opts.list, shell ?? workflow, ctx.io);
        return;
      }
      if (shell === undefined) throw usageError("completion: name a shell (bash, zsh or fish)");
      ctx.exitCode = await runCompletionScript(program, shell, ctx.io);
    });
}
