/**
 * Ask templates (`agents.md` §5.3, §5.5): `scout-ai llm template` lists the
 * files under `questions/` on the search roots, and `-t/--template` of
 * `llm ask` and `agent ask` wraps the question in one. A template
 * is looked up as an existing file, then `questions/<t>`, `chats/system/<t>`
 * and `chats/<t>` on the search roots (the working directory, then
 * `$SCOUT_HOME`), first hit wins.
 *
 * @module
 */
import type { Command } from "@commander-js/extra-typings";
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { scoutHome } from "../config/home.ts";
import { commandLineError, isScoutError, ScoutError } from "../errors.ts";
import { isFile } from "../util/fs.ts";
import { readChatFile } from "../chat/encoding.ts";
import { isReadableFile } from "../util/path_kind.ts";
import type { CliContext } from "./context.ts";
import type { Io } from "./io.ts";
import { compareNames } from "../util/name_order.ts";
import { fittedHelp } from "./help_layout.ts";
import { jsonText } from "../util/json_text.ts";

/** Where templates are looked up. */
export interface TemplateLookup {
  /** Working directory (a search root, and the base of a template given as a path). */
  cwd: string;
  /** Environment (`SCOUT_HOME`). */
  env: Record<string, string | undefined>;
}

/** Subdirectories of a search root holding templates, in lookup order. */
export const TEMPLATE_DIRS = ["questions", join("chats", "system"), "chats"] as const;

/**
 * The search roots, highest priority first: the working directory, `$SCOUT_HOME`.
 *
 * @param o cwd and env
 * @returns absolute directories, each once
 */
export function templateRoots(o: TemplateLookup): string[] {
  return [...new Set([resolve(o.cwd), scoutHome(o.env)])];
}

/**
 * Finds a template: `name` as an existing file (or a pipe: `<(…)`), else `questions/<name>`,
 * `chats/system/<name>`, `chats/<name>` (each over every root, in that order).
 *
 * @param name template name or path
 * @param o cwd and env
 * @returns the absolute file
 * @throws ScoutError `not_found` naming the places searched
 */
export function findTemplate(name: string, o: TemplateLookup): string {
  const direct = resolve(o.cwd, name);
  if (isReadableFile(direct)) return direct; // a pipe (`<(…)`) too
  const tried: string[] = [];
  for (const sub of TEMPLATE_DIRS) {
    for (const root of templateRoots(o)) {
      const f = join(root, sub, name);
      if (isFile(f)) return f;
      tried.push(join(root, sub));
    }
  }
  throw new ScoutError(
    "not_found",
    `Template "${name}" not found (searched ${direct}, then ${tried.join(", ")}; ` +
      "run 'scout-ai llm template' to list the questions/ templates)",
    { template: name },
  );
}

/**
 * Puts the question into a template: at the first `???` when there is one,
 * else appended as `\nuser: <question>` when non-empty, else the template
 * alone.
 *
 * @param template template text
 * @param question the question
 * @returns the new question
 *
 * @example
 * ```ts
 * import { applyTemplate } from "./llm_template.ts";
 * applyTemplate("Translate to French: ???", "good morning"); // "Translate to French: good morning"
 * applyTemplate("system: be brief", "hi"); // "system: be brief\nuser: hi"
 * ```
 */
export function applyTemplate(template: string, question: string): string {
  if (template.includes("???")) return template.replace("???", () => question);
  if (question !== "") return `${template}\nuser: ${question}`;
  return template;
}

/** Where a line of a question put into a template was written. */
export interface TemplatedLine {
  /** In the question (else in the template). */
  inQuestion: boolean;
  /** 1-based line there. */
  line: number;
}

/**
 * Where each line of `applyTemplate(template, question)` was written: in the
 * question (its lines start at `???`, or on the line after the template) or
 * in the template. The line holding `???` is the question's first. The texts
 * are measured once, here: a lookup is a comparison, so naming every message
 * of a long template is linear in its size (R164-1).
 *
 * @param template template text
 * @param question the question
 * @returns the lookup: 1-based line of the templated question → where it was written
 * @example
 * ```ts
 * import { templatedLines } from "./llm_template.ts";
 * const at = templatedLines("system: x\n\nQ: ???\n\nfile: a", "one\ntwo");
 * at(4); // { inQuestion: true, line: 2 }
 * at(6); // { inQuestion: false, line: 5 }
 * ```
 */
export function templatedLines(
  template: string,
  question: string,
): (line: number) => TemplatedLine {
  let start: number; // the templated question's line where the question's first is
  const mark = template.indexOf("???");
  if (mark >= 0) start = lineCount(template.slice(0, mark));
  else if (question !== "") start = lineCount(template) + 1;
  else return (line) => ({ inQuestion: false, line });
  const n = lineCount(question);
  return (line) => {
    if (line < start) return { inQuestion: false, line };
    if (line < start + n) return { inQuestion: true, line: line - start + 1 };
    return { inQuestion: false, line: line - n + 1 };
  };
}

/** How many lines `text` has (one more than its newlines). */
function lineCount(text: string): number {
  return text.split("\n").length;
}

/** A question put into a template, and where each of its lines was written. */
export interface TemplatedQuestion {
  /** The templated question. */
  text: string;
  /** The template file (absolute). */
  file: string;
  /** Where a line of {@link TemplatedQuestion.text} was written. */
  lineOf: (line: number) => TemplatedLine;
}

/**
 * Reads template `name` and puts `question` into it.
 *
 * @param name template name or path
 * @param question the question
 * @param o cwd and env
 * @returns the new question, the template file, and where each line came from
 */
export async function templateQuestion(
  name: string,
  question: string,
  o: TemplateLookup,
): Promise<TemplatedQuestion> {
  let file: string;
  try {
    file = findTemplate(name, o);
  } catch (e) {
    // -t names the template: one that is nowhere is a mistake of the command line
    throw isScoutError(e, "not_found") ? commandLineError(e) : e;
  }
  // chat text, as a chat file is: refused in UTF-16 (R133-1)
  const { text: template } = await readChatFile(file, file, "Template");
  return {
    text: applyTemplate(template, question),
    file,
    lineOf: templatedLines(template, question),
  };
}

function filesUnder(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return []; // a root without questions/ holds no templates
  }
  return entries.sort((a, b) => compareNames(a.name, b.name)).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]
  );
}

/**
 * Every file under `questions/` on every search root, roots in priority order.
 *
 * @param o cwd and env
 * @returns absolute paths
 */
export function listTemplates(o: TemplateLookup): string[] {
  return templateRoots(o).flatMap((root) => filesUnder(join(root, "questions")));
}

/**
 * `llm template`: prints the template files, one path per line (or a JSON array).
 *
 * @param io injected I/O
 * @param json print `{"version":1,"templates":[…]}`
 * @returns exit code
 */
export function runLlmTemplate(io: Io, json = false): number {
  const files = listTemplates({ cwd: io.cwd, env: io.env });
  if (json) io.stdout.write(jsonText({ version: 1, templates: files }) + "\n");
  else if (files.length > 0) io.stdout.write(files.join("\n") + "\n");
  return 0;
}

/**
 * Registers `llm template`.
 *
 * @param llm the `llm` command
 * @param ctx invocation context
 */
export function registerLlmTemplate(llm: Command, ctx: CliContext): void {
  llm.command("template")
    .description("list the ask templates: every file under questions/ on the search roots")
    .argument("[ignored...]", "ignored (as in Ruby)")
    .option("--json", 'print {"version":1, "templates":[paths…]}')
    .addHelpText(
      "after",
      fittedHelp(
        "\nSearch roots: the working directory, then $SCOUT_HOME. Use a template with\n" +
          "'llm ask -t NAME': it is looked up as a file, then questions/NAME, chats/system/NAME,\n" +
          "chats/NAME; the question replaces its first ??? or is appended as a user message.\n\n" +
          "Examples:\n  scout-ai llm template\n  scout-ai llm template --json",
      ),
    )
    .action((_ignored, o) => {
      ctx.exitCode = runLlmTemplate(ctx.io, Boolean(o.json));
    });
}
