/**
 * `scout-ai agent ask|find|list` (`agents.md` §5.1/§5.2, `DESIGN.md` §3).
 * Registration only (fast cold start); the work is in `agent_run.ts`.
 * `agent ask` takes the same flags as `llm ask` (one shared definition).
 *
 * @module
 */
import type { Command } from "@commander-js/extra-typings";
import type { CliContext } from "./context.ts";
import { withInterrupt } from "./ask_interrupt.ts";
import { FIXTURE_EXAMPLES } from "./help_text.ts";
import { ASK_ENV_HELP, type AskFlags, askFlags, askOptionsOf } from "./llm_ask.ts";
import { fittedHelp } from "./help_layout.ts";

const ASK_HELP = `
The agent is found like 'agent find NAME'; its start_chat comes before the conversation, its
workflow's tasks are offered as tools, and its agent.ts runs when it is loaded. The flags are
those of 'llm ask' (see 'scout-ai llm ask --help'): options written in QUESTION win, then the
flags (-e, -m, -O…), then the -c chat's options, then the agent's start_chat options.
An agent whose workflow has an 'ask' task answers through a job of it; there the flags are
appended after the conversation and so win over QUESTION's option lines too (as in Ruby).
Its request names the working directory (physical, symlinks resolved) and SCOUT_HOME: an
--offline replay runs from the same ones as its recording.
'...' in QUESTION is replaced by the first -f file (then not attached again), else by stdin,
as plain text (its lines are never read as chat lines); with no QUESTION and no -c FILE or
-f FILE, a piped stdin is the question. A QUESTION that is the path of a regular file is
that file's chat (as in 'llm ask'; saved as "import: FILE").
-c FILE (as in Ruby) or -o FILE appends the question and the new messages (never the start chat)
to the chat file (-o wins: -c A -o B reads A, writes B; -c - and --dry-run write nothing). A -c
file that does not exist yet starts an empty conversation (Ruby's rule), so '-c plan.chat'
starts and then continues one conversation.
--json prints the object of 'llm ask --json' ("cached": no provider request was made for the
answer); "job" is there only on the task route: the job's path under its jobs root
(<Workflow>/ask/<name>). There "cached" is also true when that job was already done (its answer
reused), "usage" and "total_usage" are read from the job's log (log/agent.chat in its files), as
recorded, and "endpoint", "backend" and "model" are its last inference's (null, "workflow" and
"" when the job wrote no such log).

${ASK_ENV_HELP}
SCOUT_AGENT_PATH adds search roots (see 'agent find --help'); ASK_AGENTS, SCOUT_MAX_AGENT_DEPTH
and SCOUT_MAX_AGENT_CALLS bound delegation (3 specialists at once, 8 levels, 200 asks in all).

${FIXTURE_EXAMPLES}
  git diff | SCOUT_AGENT_PATH=fixtures/agents scout-ai agent ask Critic "Review this diff: ..."
  SCOUT_AGENT_PATH=fixtures/agents scout-ai agent ask Planner -e nano -m gpt-4.1-mini "Plan the week"
  scout-ai agent ask ./fixtures/agents/Agent/Planner -c plan.chat "And Friday?"
  SCOUT_AGENT_PATH=fixtures/agents scout-ai agent ask Planner --dry-run "Plan the week"`;

const FIND_HELP = `
Search roots, first match wins: $SCOUT_AGENT_PATH (colon-separated), ./, $SCOUT_HOME
(~/.scout). workflows/<Name> is preferred; otherwise Agent/<Name> on any root, then
var/Agent/<Name>, chats/Agent/<Name>, chats/<Name> (Ruby's order: one ~/.scout serves both).
A path (./Dir, /abs/Dir, ~/Dir) must be a directory holding start_chat, workflow.ts, agent.ts,
knowledge_base/ or a Ruby agent's files; a directory that cannot be read is an error.

${FIXTURE_EXAMPLES}
  SCOUT_AGENT_PATH=fixtures/agents scout-ai agent find Planner
  ls "$(SCOUT_AGENT_PATH=fixtures/agents scout-ai agent find Planner)"`;

const KB_HELP = `
The agent is found like 'agent find NAME'; its knowledge_base/ is created by 'register'.
See 'scout-ai kb --help' for the commands ('agent kb NAME query --help' for one of them).

${FIXTURE_EXAMPLES}
  SCOUT_AGENT_PATH=fixtures/kb/agents scout-ai agent kb Genealogist list
  SCOUT_AGENT_PATH=fixtures/kb/agents scout-ai agent kb Genealogist query parents Ada`;

const LIST_HELP = `
Each name is listed once, at the directory 'agent find' resolves it to, with the files it
holds; when that is workflows/<Name> and an Agent/<Name> (or var/Agent/…) exists too, that
directory follows after '+' with its own files (its start_chat and agent.ts are used). A
directory counts when it holds start_chat, workflow.ts, agent.ts, workflow.rb, agent.rb,
python/ or knowledge_base/. A name 'agent find' fails on (a directory this user may not
read) is listed where it was seen, marked '(error: …)'; a directory of agents that cannot be
listed is a warning, as is one with agent files whose name no agent can have (names are ASCII
letters, digits, '_', '.' and '-': Agent/Müller is not listed). --json prints {"version":1,
"roots":[…], "agents":[{name, path, kind, root, files, dirs:[{path, files}], error?}],
"skipped":[{path, reason}]} (files: those of all dirs; skipped: the directories so warned of).

${FIXTURE_EXAMPLES}
  SCOUT_AGENT_PATH=fixtures/agents scout-ai agent list
  SCOUT_AGENT_PATH=fixtures/agents scout-ai agent list --json | jq -r '.agents[].name'`;

/**
 * Registers the `agent` command group.
 *
 * @param program the root program
 * @param ctx invocation context
 */
export function registerAgent(program: Command, ctx: CliContext): void {
  const agent = program.command("agent").description(
    "ask agents (Agent/<Name>/ directories: start_chat, workflow.ts, agent.ts) and find them",
  ).addHelpText(
    "after",
    fittedHelp(
      `\n${FIXTURE_EXAMPLES}\n  SCOUT_AGENT_PATH=fixtures/agents scout-ai agent list\n` +
        '  SCOUT_AGENT_PATH=fixtures/agents scout-ai agent ask Planner --dry-run "Plan the week"',
    ),
  );
  registerAgentAsk(agent, ctx);
  registerAgentFind(agent, ctx);
  registerAgentKb(agent, ctx);
  registerAgentList(agent, ctx);
}

function registerAgentAsk(agent: Command, ctx: CliContext): void {
  const askCmd = askFlags(
    agent.command("ask").description("ask an agent; the answer goes to stdout")
      .argument(
        "<name>",
        "agent name (Agent/<Name>/ on the search roots) or ./path to its directory",
      ) as unknown as Command,
  );
  askCmd.addHelpText("after", fittedHelp(ASK_HELP));
  askCmd.action(async (...args: unknown[]) => {
    const [name, question, o] = args as [string, string[], AskFlags];
    await withInterrupt(ctx, async (signal) => {
      const [{ runAgentAsk }, { flagValueError }] = await Promise.all([
        import("./agent_run.ts"),
        import("./ask_options.ts"),
      ]);
      const opts = askOptionsOf(question, o, signal);
      return await runAgentAsk(name, opts, ctx.io).catch((e) => {
        throw flagValueError(e, opts);
      });
    });
  });
}

function registerAgentFind(agent: Command, ctx: CliContext): void {
  agent.command("find").description("print the directory an agent name resolves to")
    .argument("<name>", "agent name")
    .addHelpText("after", fittedHelp(FIND_HELP))
    .action(async (name: string) => {
      const { runAgentFind } = await import("./agent_run.ts");
      ctx.exitCode = runAgentFind(name, ctx.io);
    });
}

function registerAgentKb(agent: Command, ctx: CliContext): void {
  const kbCmd = agent.command("kb")
    .description("run a 'kb' command (list, query, register) on an agent's knowledge_base/")
    .argument("[name]", "agent name").argument("[command...]", "kb command and its arguments")
    .allowUnknownOption().helpOption(false)
    .addHelpText("after", fittedHelp(KB_HELP));
  kbCmd.action(async (name: string | undefined, args: string[]) => {
    if (name === undefined || name === "--help" || name === "-h" || args.length === 0) {
      const help = name === "--help" || name === "-h";
      kbCmd.outputHelp({ error: !help }); // a usage error (exit 2) on stderr, --help on stdout
      ctx.exitCode = help ? 0 : 2;
      return;
    }
    await (await import("./kb.ts")).runAgentKb(name, args, ctx);
  });
}

function registerAgentList(agent: Command, ctx: CliContext): void {
  agent.command("list").description("list the agents on the search roots and where each was found")
    .option("--json", "print a JSON object instead of a table")
    .addHelpText("after", fittedHelp(LIST_HELP))
    .action(async (o: { json?: boolean }) => {
      const { runAgentList } = await import("./agent_run.ts");
      ctx.exitCode = runAgentList(Boolean(o.json), ctx.io);
    });
}
