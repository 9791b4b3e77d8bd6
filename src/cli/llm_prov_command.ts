/**
 * The `llm prov` command: its flags, help and examples, and commander's
 * missing-ROOT message made to say what ROOT is; the run is `llm_prov.ts`.
 *
 * @module
 */
import type { Command } from "@commander-js/extra-typings";
import type { CliContext } from "./context.ts";
import { MISSING_ROOT_TEXT, runLlmProv } from "./llm_prov.ts";
import { FIXTURE_EXAMPLES } from "./help_text.ts";
import { fittedHelp } from "./help_layout.ts";

/** Commander's message for a missing ROOT (replaced by {@link MISSING_ROOT_TEXT}). */
const MISSING_ROOT = "missing required argument 'root'";

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** What `llm prov --help` says after the flags. */
const PROV_HELP =
  "\nThe tree shows subtree token totals (everything a node reaches, each inference counted\n" +
  "once); -c shows each node's own tokens. Jobs are found through `meta: job=` markers,\n" +
  "delegation receipts (agent_meta), .info dependencies, .files/log/**/*.chat and chat\n" +
  "results, under --jobs-dir, ./var/jobs, $SCOUT_HOME/var/jobs (or $SCOUT_JOBS_DIR) and\n" +
  "~/.rbbt/var/jobs. Nothing is executed. Unreadable evidence is reported on stderr and\n" +
  "never aborts (exit 0); --log 6 hides the warnings, not the tree's, flow's or table's\n" +
  "closing (incomplete: …) line, which goes to stderr after a graph (--dot, --plot, --html,\n" +
  "--mermaid), whose own label, title or header also says it. A ROOT chat that cannot be\n" +
  "read fails (exit 1); ROOT may be a pipe, such as <(cat session.chat).\n" +
  "Several ROOTs (llm prov logs/*.chat) are explained together, in one walk: each root's\n" +
  "tree in turn (what an earlier tree printed is a (seen) line), then a `together` line with\n" +
  "their tokens, each inference counted once — one that two roots share, as a cache replay\n" +
  "(same inference_id), is in each root's own total but once together; --json adds `roots`\n" +
  "and its totals are together; --by, --flow, --dot, --plot, --mermaid, --html, --tools\n" +
  "and -e cover all the roots. A ROOT that is not there fails naming it (exit 1).\n" +
  "One view prints on stdout: the tree, --flow, --by, --mermaid, --dot - or --tools; --json\n" +
  "replaces the tree, flow and evidence text and holds --by's table and --tools' report.\n" +
  "--dot FILE, --plot and --html only write files: no tree prints (-f or -e add text).\n" +
  "The short letters (-c, -f, -l, -e, -p) are Scout's (Ruby) prov flags: -c, -e, -f and -l\n" +
  "mean other things in the other commands (--chat, --endpoint, --file, --log).\n" +
  "--by groups the deduplicated inferences by agent (society log, delegated job), model,\n" +
  "endpoint or job; records written before model=/endpoint= were kept go in '(none)'. With\n" +
  "$SCOUT_HOME/etc/prices.yaml (dollars per million tokens per model: input, cached_input,\n" +
  "cache_write, output, reasoning) a cost column is added; cached tokens are priced apart.\n" +
  "An entry prices its model and that name dated or versioned: gpt-4o prices\n" +
  "gpt-4o-2024-08-06, not gpt-4o-mini (give each model its entry).\n\n" +
  `${FIXTURE_EXAMPLES}\n` +
  "  scout-ai llm prov fixtures/provenance/example/session.chat \\\n" +
  "    --jobs-dir fixtures/provenance/example/jobs\n" +
  "  scout-ai llm prov fixtures/provenance/example/session.chat \\\n" +
  "    --jobs-dir fixtures/provenance/example/jobs --flow --evidence\n" +
  "  scout-ai llm prov fixtures/provenance/example/jobs/Planner/ask/Default_a1b2c3d4e5.chat \\\n" +
  "    --jobs-dir fixtures/provenance/example/jobs -c\n" +
  "  scout-ai llm prov fixtures/provenance/example/session.chat \\\n" +
  "    --jobs-dir fixtures/provenance/example/jobs --plot provenance.svg\n" +
  "  scout-ai llm prov fixtures/provenance/society/plan.chat \\\n" +
  "    --jobs-dir fixtures/provenance/society/jobs    # a recorded multi-agent run\n" +
  "  scout-ai llm prov fixtures/provenance/example/session.chat \\\n" +
  "    --jobs-dir fixtures/provenance/example/jobs --json | jq '.totals.deduplicated_total.tt'\n" +
  "  scout-ai llm prov fixtures/provenance/example/session.chat \\\n" +
  "    --jobs-dir fixtures/provenance/example/jobs --by agent,model\n" +
  "  scout-ai llm prov fixtures/provenance/example/session.chat \\\n" +
  "    --jobs-dir fixtures/provenance/example/jobs --html provenance.html\n" +
  "  scout-ai llm prov fixtures/provenance/example/session.chat \\\n" +
  "    --jobs-dir fixtures/provenance/example/jobs --mermaid > provenance.mmd\n" +
  "  scout-ai llm prov fixtures/provenance/*/*.chat -J fixtures/provenance/example/jobs \\\n" +
  "    -J fixtures/provenance/society/jobs    # two roots together, as logs/*.chat";

/**
 * Registers `llm prov`.
 *
 * @param llm the `llm` command group
 * @param ctx invocation context
 */
export function registerLlmProv(llm: Command, ctx: CliContext): void {
  const prov = llm.command("prov")
    .description("explain how a chat or job was produced: chats, jobs, agents, tokens")
    .argument(
      "<root...>",
      "a chat file, or a job: its path (detected by its .info or .files) or, as workflow info takes it, Workflow/task/name or a prefix of the name; several (logs/*.chat) are explained together",
    )
    .option("-c, --component", "per-node direct tokens instead of subtree totals (+ coverage)")
    .option("-f, --flow", "compact flow (producer → consumer) instead of the tree")
    .option("-l, --long", "label nodes with their canonical paths")
    .option("-e, --evidence", "append the per-inference evidence report")
    .option("--dot <file>", "write Graphviz DOT to FILE (- for stdout; a pipe such as >(…) too)")
    .option(
      "-p, --plot <file>",
      "render with Graphviz dot into FILE (.svg, .png or .pdf; written whole, directories made, a link written through; - prints SVG on stdout)",
    )
    .option("--json", "print the scout-ai/provenance v1 JSON document instead of text")
    .option(
      "--tools",
      "list every tool call: tool, agent, status, duration, arguments; then who delegated to whom and how it links (+ --json)",
    )
    .option(
      "--by <dims>",
      "tokens, inferences (and cost) per agent, model, endpoint or job, e.g. --by agent,model",
    )
    .option("--mermaid", "print a Mermaid flowchart (renders in GitHub markdown)")
    .option(
      "--html <file>",
      "write one self-contained HTML page: graph, messages, tokens, roll-ups (a link is written through, a pipe straight)",
    )
    .option(
      "-J, --jobs-dir <dir>",
      "also resolve job references under DIR (repeatable; searched first)",
      collect,
    )
    .addHelpText("after", fittedHelp(PROV_HELP))
    .action(async (roots, o) => {
      const { jobsDir, ...flags } = o;
      ctx.exitCode = await runLlmProv({
        ...flags,
        root: roots[0]!,
        roots: roots.length > 1 ? roots : undefined,
        jobsDirs: jobsDir,
        warnings: ctx.logLevel <= 5,
      }, ctx.io);
    });
  // commander's "missing required argument 'root'" does not say what ROOT is
  const { outputError } = prov.configureOutput();
  prov.configureOutput({
    outputError: (s, write) => outputError!(s.replace(MISSING_ROOT, MISSING_ROOT_TEXT), write),
  });
}
