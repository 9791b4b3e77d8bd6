/**
 * `--help` fits the terminal it is printed on (R141-5), on a real pty
 * (`tests/support/pty.ts` gives the command one, `columns` wide): at 80 columns the root
 * help ran to 176 (its `completion …` term left commander under 40 columns,
 * where it wraps nothing) and `llm ask --help`'s own paragraphs to ~100; at
 * 40, most lines of the root, `llm ask` and a task's help were too wide.
 * Only examples (printed as they run) and a word longer than the room left
 * may overflow. Into a pipe, help is 80 columns wide, the same as on an
 * 80-column terminal.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fitHelpText } from "../../src/cli/help_fit.ts";
import { displayWidth } from "../../src/util/display_width.ts";
import { DENO, ROOT, runScout, SCOUT_SOURCE_ARGS } from "../support/cli.ts";
import { atTerminal } from "../support/pty.ts";

const BAKING = join(ROOT, "fixtures", "workflows", "Baking");
const env = { NO_COLOR: "1", HOME: "/nonexistent-r141", SCOUT_HOME: "/nonexistent-r141" };
const HELPS = [["--help"], ["llm", "ask", "--help"], [
  "workflow",
  "task",
  BAKING,
  "cake",
  "--help",
]];

/** The help `args` print on a pty `columns` wide (line ends as `\n`). */
async function ptyHelp(args: string[], columns: number): Promise<string> {
  const run = await atTerminal([DENO, ...SCOUT_SOURCE_ARGS, ...args], {
    cwd: ROOT,
    env,
    cols: columns,
  });
  const text = run.screen.replaceAll("\r\n", "\n");
  assert.equal(run.code, 0, text);
  return text;
}

/**
 * The lines of `help` wider than `columns`, but for an example (an indented
 * line of an Examples section, printed as it runs) and a line holding one
 * word (wider than the room left: nothing to break).
 */
function tooWide(help: string, columns: number): string[] {
  let examples = false;
  return help.split("\n").filter((line) => {
    if (line.startsWith("Examples")) examples = true;
    else if (line === "") examples = false;
    if (displayWidth(line) <= columns) return false;
    return !(examples && line.startsWith("  ")) && line.trim().split(/\s+/).length > 1;
  });
}

Deno.test("--help fits an 80- and a 40-column terminal: root, llm ask, a task (R141-5)", async () => {
  const runs = HELPS.flatMap((args) => [80, 40].map((columns) => ({ args, columns })));
  const texts = await Promise.all(runs.map(({ args, columns }) => ptyHelp(args, columns)));
  runs.forEach(({ args, columns }, i) => {
    const help = texts[i]!;
    assert.match(help, /^Usage: scout-ai /, help);
    assert.deepEqual(tooWide(help, columns), [], `${args.join(" ")} at ${columns} columns`);
  });
  // nothing lost: every option of llm ask is still listed, its paragraphs whole
  const ask40 = texts[3]!.replace(/\s+/g, " ");
  for (const flag of ["--template <name>", "--inline <file>", "--no-stream", "-h, --help"]) {
    assert.ok(ask40.includes(flag), flag);
  }
  assert.ok(ask40.includes("The question is chat text: plain words are a user message;"));
});

Deno.test("--help into a pipe: 80 columns, as on an 80-column terminal (R141-5)", async () => {
  const [piped, tty] = await Promise.all([
    Promise.all(HELPS.map((args) => runScout(args, { env }))),
    Promise.all(HELPS.map((args) => ptyHelp(args, 80))),
  ]);
  HELPS.forEach((args, i) => {
    assert.equal(piped[i]!.code, 0, piped[i]!.stderr);
    assert.equal(piped[i]!.stdout, tty[i], args.join(" "));
  });
  // the root's long term on a line of its own; the others keep a narrow column
  assert.match(
    piped[0]!.stdout,
    /^ {2}completion \[options\] \[shell\] \[workflow\] \[task\]\n {18}print a shell completion/m,
  );
  assert.match(piped[0]!.stdout, /^ {2}--debug {9}print stack traces on errors$/m);
});

Deno.test("fitHelpText: paragraphs reflowed; examples, tables and blank lines kept (R141-5)", () => {
  const text = "One two three\nfour five.\n\nTable:\n  a   b c d e f\n  scout-ai x y z w\n" +
    "averyveryverylongword and more";
  assert.equal(
    fitHelpText(text, 12),
    "One two\nthree four\nfive.\n\nTable:\n  a   b c d e f\n  scout-ai x y z w\n" +
      "averyveryverylongword\nand more",
  );
  assert.equal(fitHelpText("a b\nc", 80), "a b c");
});
