/**
 * How commander lays out every help of the CLI at the width it is written in
 * (R141-5; the width: `help_fit.ts`). Commander pads every term to the
 * longest one and wraps no description once fewer than `minWidthToWrap`
 * (40) columns are left: the root's `completion [options] [shell]
 * [workflow] [task]` left 30 at 80 columns, and its lines ran to 176. Here
 * the term column takes at most half the width (less on a narrow terminal,
 * so that descriptions keep {@link MIN_WIDTH_TO_WRAP} columns); a longer
 * term goes on a line of its own, its description below it in the column —
 * as argparse does. The usage line is wrapped too, and the hand-written text
 * after the options ({@link fittedHelp}) reflowed.
 *
 * @module
 */
import { type AddHelpTextContext, Help, type HelpConfiguration } from "@commander-js/extra-typings";
import { fitHelpText, PIPE_HELP_WIDTH, wrapWords } from "./help_fit.ts";

/** The narrowest description column that is wrapped (commander's default: 40). */
const MIN_WIDTH_TO_WRAP = 16;

/** Commander's indent of an item, and its space between term and description. */
const ITEM_INDENT = 2;
const SPACER = 2;

/** The widest term the term column is padded to, at a help width. */
function termColumnCap(width: number): number {
  return Math.max(
    0,
    Math.min(Math.floor(width / 2), width - ITEM_INDENT - SPACER - MIN_WIDTH_TO_WRAP),
  );
}

/** Every term a help lists (options, global options, commands, arguments), styled. */
function terms(cmd: Parameters<Help["padWidth"]>[0], helper: Help): string[] {
  const options = [
    ...helper.visibleOptions(cmd),
    ...(helper.showGlobalOptions ? helper.visibleGlobalOptions(cmd) : []),
  ];
  return [
    ...options.map((o) => helper.styleOptionTerm(helper.optionTerm(o))),
    ...helper.visibleCommands(cmd).map((c) => helper.styleSubcommandTerm(helper.subcommandTerm(c))),
    ...helper.visibleArguments(cmd).map((a) => helper.styleArgumentTerm(helper.argumentTerm(a))),
  ];
}

/**
 * The help configuration every program of the CLI has (`cliProgram`); a
 * command that configures its help further spreads it into its own, since
 * `configureHelp` replaces what it inherited.
 */
export const HELP_LAYOUT: HelpConfiguration = {
  minWidthToWrap: MIN_WIDTH_TO_WRAP,
  /** The longest term that fits in the capped term column. */
  padWidth(this: Help, cmd, helper) {
    const cap = termColumnCap(helper.helpWidth ?? PIPE_HELP_WIDTH);
    const widths = terms(cmd, helper).map((t) => helper.displayWidth(t));
    return Math.max(0, ...widths.filter((w) => w <= cap));
  },
  /**
   * A term wider than the column on its own line (wrapped between words if
   * wider than the help), its description below it in the column.
   */
  formatItem(this: Help, term, termWidth, description, helper) {
    if (helper.displayWidth(term) <= termWidth) {
      return Help.prototype.formatItem.call(this, term, termWidth, description, helper);
    }
    const indent = " ".repeat(ITEM_INDENT);
    const width = (helper.helpWidth ?? PIPE_HELP_WIDTH) - ITEM_INDENT;
    const lines = wrapWords(term, width, indent).map((l) => indent + l);
    if (description !== "") {
      lines.push(Help.prototype.formatItem.call(this, "", termWidth, description, helper));
    }
    return lines.join("\n");
  },
  /** The usage wrapped between words, the lines after the first under its first word. */
  styleUsage(this: Help, str) {
    const title = "Usage: "; // what formatHelp puts before it
    const styled = Help.prototype.styleUsage.call(this, str);
    const width = this.helpWidth ?? PIPE_HELP_WIDTH;
    const [first, ...rest] = wrapWords(title + styled, width, " ".repeat(title.length));
    return [first!.slice(title.length), ...rest].join("\n");
  },
};

/**
 * Hand-written help text for `addHelpText`, reflowed (`fitHelpText`) to the
 * width the rest of the help is written in: the width the command's output
 * configuration gives for the stream the help goes to.
 *
 * @param text the text, pre-wrapped at any width
 * @returns what `addHelpText` takes
 */
export function fittedHelp(text: string): (context: AddHelpTextContext) => string {
  return ({ error, command }) => {
    const out = command.configureOutput();
    const width = (error ? out.getErrHelpWidth?.() : out.getOutHelpWidth?.()) ?? PIPE_HELP_WIDTH;
    return fitHelpText(text, width);
  };
}
