/**
 * `scout-ai kb register|list|query` and the `agent kb <Agent> …` form
 * (`agents.md` §5.2, §6.2). Registration only (fast cold start); the work is
 * in `kb_run.ts`.
 *
 * @module
 */
import { type Command, Help } from "@commander-js/extra-typings";
import type { CliContext } from "./context.ts";
import { cliProgram } from "./cli_program.ts";
import { FIXTURE_EXAMPLES } from "./help_text.ts";
import { fittedHelp, HELP_LAYOUT } from "./help_layout.ts";
import { addScoutSpellings, rubyFlagArgs } from "./ruby_flags.ts";

const REGISTER_HELP = `
The header is checked now; the index is built on the first query, next to the knowledge base
(.scout-ai-index/), and rebuilt when the TSV file changes. Fields match Scout's loose names
("Parent" finds "Parent (Alias)"). Prints NAME, SOURCE -> TARGET and the fields.

${FIXTURE_EXAMPLES}
  scout-ai kb register my_kb parents fixtures/kb/family/parents --description "Who is whose parent"
  scout-ai kb register my_kb siblings fixtures/kb/family/siblings --undirected`;

const LIST_HELP = `
Databases that exist only as Scout's TokyoCabinet files (<db>.database) are listed as unreadable,
and so is a database whose TSV file is missing or malformed — every row is read, building the
index a query would (exit 1). --json prints
{"version":1, "knowledge_base", "databases":[{name, file, source, target, fields, undirected,
description, error}]}.

${FIXTURE_EXAMPLES}
  scout-ai kb list fixtures/kb/family
  scout-ai kb list fixtures/kb/family --json | jq -r '.databases[].name'`;

const QUERY_HELP = `
Prints one association per line: the key (source~target; undirected databases entity~partner)
and the field values, tab-separated. --reverse prints keys target~source, as the tools return
them. --json prints {"version":1, "database", "reverse", "fields", "associations":[{key, source,
target, values}]}. No association is not an error (exit 0, nothing printed).

${FIXTURE_EXAMPLES}
  scout-ai kb query fixtures/kb/family parents Ada Eva
  scout-ai kb query fixtures/kb/family parents Bruno --reverse
  scout-ai kb query fixtures/kb/family siblings Dani --json | jq -r '.associations[].target'`;

/** What Scout's `kb query -l` (the keys alone) is here. */
const LIST_ONLY =
  "each line starts with the key: cut -f1 (or --json | jq -r '.associations[].key')";

// The builder's generic argument types differ with and without <kb-dir>: one loose type.
// deno-lint-ignore no-explicit-any
type Loose = any;

/** How a `kb` subcommand gets its knowledge base: a `<kb-dir>` argument, or `agent kb`'s fixed one. */
interface KbDir {
  /** Adds the `<kb-dir>` argument to a subcommand (none with a fixed directory). */
  arg(c: Loose): Loose;
  /** The directory and the other action arguments. */
  of(args: unknown[]): [string, unknown[]];
}

function kbDir(fixedDir: (() => string) | undefined): KbDir {
  return {
    arg: (c) => fixedDir === undefined ? c.argument("<kb-dir>", "knowledge base directory") : c,
    of: (args) => fixedDir === undefined ? [args[0] as string, args.slice(1)] : [fixedDir(), args],
  };
}

/**
 * Registers the `kb` command group (also used by `agent kb`, with the
 * knowledge base directory fixed).
 *
 * @param program the root program
 * @param ctx invocation context
 * @param fixedDir the knowledge base of `agent kb`, known when its action runs (then no
 *   `<kb-dir>` argument)
 */
export function registerKb(program: Command, ctx: CliContext, fixedDir?: () => string): void {
  const kb = program.command("kb").description(
    "knowledge bases: databases of entity associations from Scout TSV files, used as tools by " +
      "kb: lines and agents' knowledge_base/",
  )
    // the subcommands' terms without "[options]" (each has its --help), else laid out as
    // every help is (configureHelp replaces what kb inherited)
    .configureHelp({
      ...HELP_LAYOUT,
      subcommandTerm(this: Help, c) {
        return Help.prototype.subcommandTerm.call(this, c).replace(" [options]", "");
      },
    });
  if (fixedDir === undefined) {
    kb.addHelpText(
      "after",
      fittedHelp(
        `\n${FIXTURE_EXAMPLES}\n  scout-ai kb list fixtures/kb/family\n` +
          "  scout-ai kb query fixtures/kb/family parents Ada Eva",
      ),
    );
  }
  const dir = kbDir(fixedDir);
  registerKbRegister(kb, ctx, dir);
  registerKbList(kb, ctx, dir);
  registerKbQuery(kb, ctx, dir);
}

function registerKbRegister(kb: Command, ctx: CliContext, dir: KbDir): void {
  const register = dir.arg(kb.command("register"))
    .description("register a TSV file as a database (creates the directory and config/registry)")
    .argument("<name>", "database name (the tool name)")
    .argument(
      "<file>",
      "Scout TSV file ('#: :sep=…#:type=…' line, '#Source<TAB>Target…' header); kept by path " +
        "and read again later, so not '-' or a pipe",
    )
    .option("--source <field>", "source field (default: the first column)")
    .option("--target <field>", "target field (default: the second column)")
    .option("--fields <list>", "comma-separated fields to keep (default: all other columns)")
    .option("--undirected", "associations go both ways (entity~partner)")
    .option("--description <text>", "what the database holds (shown to the model)");
  register.addHelpText("after", fittedHelp(REGISTER_HELP));
  addScoutSpellings(register, { aliases: { "-u": "--undirected", "-d": "--description" } });
  register.action((...args: unknown[]) => {
    const [d, rest] = dir.of(args);
    const [name, file, o] = rest as [string, string, Record<string, unknown>];
    return import("./kb_run.ts").then(({ runKbRegister }) => {
      ctx.exitCode = runKbRegister({ dir: d, name, file, ...o }, ctx.io);
    });
  });
}

function registerKbList(kb: Command, ctx: CliContext, dir: KbDir): void {
  const list = dir.arg(kb.command("list"))
    .description("list a knowledge base's databases: source -> target and fields")
    .option("--json", "print a JSON object instead of lines");
  list.addHelpText("after", fittedHelp(LIST_HELP));
  list.action((...args: unknown[]) => {
    const [d, rest] = dir.of(args);
    const o = rest[0] as { json?: boolean };
    return import("./kb_run.ts").then(async ({ runKbList }) => {
      ctx.exitCode = await runKbList(d, Boolean(o.json), ctx.io);
    });
  });
}

function registerKbQuery(kb: Command, ctx: CliContext, dir: KbDir): void {
  const query = dir.arg(kb.command("query"))
    .description("associations of entities in a database, with their field values")
    .argument("<database>", "database name")
    .argument("<entity...>", "entities (sources; targets with --reverse)")
    .option("--reverse", "the entities are targets: find their sources (keys print target~source)")
    .option("--json", "print a JSON object instead of lines");
  query.addHelpText("after", fittedHelp(QUERY_HELP));
  addScoutSpellings(query, { refused: { "-l": LIST_ONLY, "--list": LIST_ONLY } });
  query.action((...args: unknown[]) => {
    const [d, rest] = dir.of(args);
    const [database, entities, o] = rest as [
      string,
      string[],
      { reverse?: boolean; json?: boolean },
    ];
    return import("./kb_run.ts").then(({ runKbQuery }) => {
      ctx.exitCode = runKbQuery({ dir: d, database, entities, ...o }, ctx.io);
    });
  });
}

/**
 * Runs `agent kb <Agent> <command> [args…]`: the `kb` command on the agent's
 * `knowledge_base/`, found when the command runs (after the `--json` watch:
 * a failure there prints the JSON document too).
 *
 * @param name agent name or path
 * @param args the `kb` command and its arguments
 * @param ctx invocation context
 */
export async function runAgentKb(name: string, args: string[], ctx: CliContext): Promise<void> {
  let dir = "";
  const program = cliProgram(ctx, "scout-ai agent").hook("preAction", async () => {
    const { agentKnowledgeBaseDir } = await import("./kb_run.ts");
    dir = await agentKnowledgeBaseDir(name, ctx.io);
  });
  registerKb(program, ctx, () => dir);
  // usage lines name the agent: `scout-ai agent kb NAME query …`
  const kb = program.commands.find((c) => c.name() === "kb")!;
  kb.name(`kb ${name}`);
  // Ruby's spellings: main read them as far as `agent kb NAME`, the kb command's are here
  await program.parseAsync([kb.name(), ...rubyFlagArgs(kb, args)], { from: "user" });
}
