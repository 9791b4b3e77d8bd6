/**
 * Message builders for tasks, jobs, associations and xml tags.
 * Re-exported by `builders.ts` (`chat.md` §8).
 *
 * @module
 */
import type { Chat, Message } from "./types.ts";
import { printOptions } from "./option_text.ts";
import { message } from "./builders_roles.ts";

function taskContent(workflow: string, taskName: string, inputs: Record<string, unknown>): string {
  return `${workflow} ${taskName} ${printOptions(inputs)}`;
}

/**
 * Appends `task: Workflow task k=v…` (compile runs the job and replaces the
 * message by a `job:` reference). No inputs leaves a trailing space (parity).
 *
 * @param chat messages (modified)
 * @param workflow workflow name
 * @param taskName task name
 * @param inputs task inputs (printed with `printOptions`)
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { task } from "./builders.ts";
 * task([], "Baking", "bake", { n: 2 }); // content "Baking bake n=2"
 * ```
 */
export function task(
  chat: Message[],
  workflow: string,
  taskName: string,
  inputs: Record<string, unknown> = {},
): Chat {
  return message(chat, "task", taskContent(workflow, taskName, inputs));
}

/**
 * Appends `exec_task: Workflow task k=v…` (run in-process at compile time; the
 * result becomes a user message).
 *
 * @param chat messages (modified)
 * @param workflow workflow name
 * @param taskName task name
 * @param inputs task inputs
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { execTask } from "./builders.ts";
 * execTask([], "Baking", "recipe", { name: "muffins" });
 * ```
 */
export function execTask(
  chat: Message[],
  workflow: string,
  taskName: string,
  inputs: Record<string, unknown> = {},
): Chat {
  return message(chat, "exec_task", taskContent(workflow, taskName, inputs));
}

/**
 * Appends `inline_task: Workflow task k=v…` (the job's result is inlined as a
 * file at compile time).
 *
 * @param chat messages (modified)
 * @param workflow workflow name
 * @param taskName task name
 * @param inputs task inputs
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { inlineTask } from "./builders.ts";
 * inlineTask([], "Baking", "recipe");
 * ```
 */
export function inlineTask(
  chat: Message[],
  workflow: string,
  taskName: string,
  inputs: Record<string, unknown> = {},
): Chat {
  return message(chat, "inline_task", taskContent(workflow, taskName, inputs));
}

/**
 * Appends `job: path` (compile turns it into a tool call and its output).
 *
 * @param chat messages (modified)
 * @param jobPath job path
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { job } from "./builders.ts";
 * job([], "/home/me/.scout/var/jobs/Baking/bake/Default");
 * ```
 */
export function job(chat: Message[], jobPath: string): Chat {
  return message(chat, "job", jobPath);
}

/**
 * Appends `inline_job: path` (compile inlines the job's result as a file).
 *
 * @param chat messages (modified)
 * @param jobPath job path
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { inlineJob } from "./builders.ts";
 * inlineJob([], "/home/me/.scout/var/jobs/Baking/recipe/Default");
 * ```
 */
export function inlineJob(chat: Message[], jobPath: string): Chat {
  return message(chat, "inline_job", jobPath);
}

/**
 * Appends `association: name path k=v…` ([DIVERGE D13]: Ruby sends only the
 * name). Without options no trailing space is written.
 *
 * @param chat messages (modified)
 * @param name database name
 * @param path database file
 * @param opts options such as `fields` and `type`
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { association } from "./builders.ts";
 * association([], "genes", "genes.tsv", { fields: ["name", "chr"] }); // content "genes genes.tsv fields=name,chr"
 * ```
 */
export function association(
  chat: Message[],
  name: string,
  path: string,
  opts: Record<string, unknown> = {},
): Chat {
  const options = printOptions(opts);
  return message(
    chat,
    "association",
    options === "" ? `${name} ${path}` : `${name} ${path} ${options}`,
  );
}

/** Options of {@link tag}. */
export interface TagOptions {
  /** Value of the `name` attribute (omitted when undefined). */
  name?: string;
  /** Element name (default `file`). */
  tag?: string;
  /** Role of the appended message (default `user`). */
  role?: string;
}

/**
 * The text `<tag name="NAME">\ncontent\n</tag>` (attribute omitted without a
 * name; nothing is escaped, as in Ruby).
 *
 * @param content element body
 * @param opts element and attribute names
 * @returns the element text
 *
 * @example
 * ```ts
 * import { tagText } from "./builders.ts";
 * tagText("x = 1", { name: "a.py" }); // '<file name="a.py">\nx = 1\n</file>'
 * ```
 */
export function tagText(content: string, opts: { name?: string; tag?: string } = {}): string {
  const tag = opts.tag ?? "file";
  const attr = opts.name === undefined ? "" : ` name="${opts.name}"`;
  return `<${tag}${attr}>\n${content}\n</${tag}>`;
}

/**
 * Appends a message whose content is `content` wrapped in an xml element
 * (see {@link tagText}); by default a user `<file>` element.
 *
 * @param chat messages (modified)
 * @param content element body
 * @param opts attribute name, element name, role
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { tag } from "./builders.ts";
 * tag([], "x = 1", { name: "a.py" }); // [{ role: "user", content: '<file name="a.py">\nx = 1\n</file>' }]
 * ```
 */
export function tag(chat: Message[], content: string, opts: TagOptions = {}): Chat {
  return message(chat, opts.role ?? "user", tagText(content, opts));
}
