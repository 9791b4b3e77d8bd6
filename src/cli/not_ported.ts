/**
 * Scout's commands that scout-ai does not port (`llm md`, `llm word`,
 * `llm server`, `workflow prov`): hidden commands that say so and what to use
 * instead, in one line on stderr, exit 2 — rather than commander's generic
 * `unknown command` (R158-7). The list is in docs/spec-notes/agents-cli.md.
 *
 * @module
 */
import type { Command } from "@commander-js/extra-typings";
import type { CliContext } from "./context.ts";
import { paint } from "./io.ts";

/** Scout's commands not ported, by group, with what to use instead. */
const NOT_PORTED: Record<string, Record<string, string>> = {
  llm: {
    md: "formats a chat as Markdown; 'scout-ai chat parse FILE --json' gives its messages " +
      "({role, content}) to format",
    word: "formats a chat as a Word document with pandoc; 'scout-ai chat parse FILE --json' " +
      "gives its messages to format",
    server: "serves a notebook web UI over ./chats; run chats with 'scout-ai llm ask -c FILE'",
  },
  workflow: {
    prov: "prints a job's dependency tree; use 'scout-ai llm prov JOB' (--plot FILE to draw " +
      "it) or 'scout-ai workflow info JOB'",
  },
};

/**
 * Registers the hidden not-ported commands of a group (`llm`, `workflow`).
 *
 * @param group the group's command
 * @param ctx invocation context
 */
export function registerNotPorted(group: Command, ctx: CliContext): void {
  const name = group.name();
  for (const [cmd, instead] of Object.entries(NOT_PORTED[name] ?? {})) {
    group.command(cmd, { hidden: true })
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .argument("[args...]")
      .action(() => {
        const prefix = paint(ctx.io, "stderr", "red", "scout-ai:");
        ctx.io.stderr.write(
          `${prefix} '${name} ${cmd}' of Scout is not ported: it ${instead}\n`,
        );
        ctx.exitCode = 2;
      });
  }
}
