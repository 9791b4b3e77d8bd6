/**
 * Message builders (`chat.md` §8): the Ruby chat DSL as functions. Each one
 * pushes one message onto the given array and returns that same array, so
 * calls chain by nesting or by statements:
 *
 * ```ts
 * import { option, system, user } from "./builders.ts";
 * import type { Message } from "./types.ts";
 * const chat: Message[] = [];
 * system(chat, "Be brief");
 * option(chat, "temperature", 0);
 * user(chat, "hi");
 * ```
 *
 * @module
 */
import type { Chat, Message } from "./types.ts";
import { printOptions } from "./option_text.ts";

/**
 * Appends `{role, content}`.
 *
 * @param chat messages (modified)
 * @param role role name (stored as a string)
 * @param content message body
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { message } from "./builders.ts";
 * message([], "user", "hi"); // [{ role: "user", content: "hi" }]
 * ```
 */
export function message(chat: Message[], role: string, content: unknown): Chat {
  chat.push({ role: String(role), content });
  return chat;
}

/**
 * Appends a `user` message.
 *
 * @param chat messages (modified)
 * @param text the text
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { user } from "./builders.ts";
 * user([], "What is 2+2?");
 * ```
 */
export function user(chat: Message[], text: unknown): Chat {
  return message(chat, "user", text);
}

/**
 * Appends a `system` message.
 *
 * @param chat messages (modified)
 * @param text the text
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { system } from "./builders.ts";
 * system([], "You are a careful assistant.");
 * ```
 */
export function system(chat: Message[], text: unknown): Chat {
  return message(chat, "system", text);
}

/**
 * Appends an `assistant` message.
 *
 * @param chat messages (modified)
 * @param text the text
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { assistant } from "./builders.ts";
 * assistant([], "4");
 * ```
 */
export function assistant(chat: Message[], text: unknown): Chat {
  return message(chat, "assistant", text);
}

/**
 * Appends a non-sticky `option: name value` (reset by the next assistant
 * reply). A null/undefined value gives `name ` (empty value, kept).
 *
 * @param chat messages (modified)
 * @param name option name
 * @param value option value
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { option } from "./builders.ts";
 * option([], "temperature", 0.2); // [{ role: "option", content: "temperature 0.2" }]
 * ```
 */
export function option(chat: Message[], name: string, value: unknown): Chat {
  return message(chat, "option", `${name} ${value ?? ""}`);
}

/**
 * Appends a `sticky_option: name value` (survives assistant replies).
 *
 * @param chat messages (modified)
 * @param name option name
 * @param value option value
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { stickyOption } from "./builders.ts";
 * stickyOption([], "reasoning_effort", "low");
 * ```
 */
export function stickyOption(chat: Message[], name: string, value: unknown): Chat {
  return message(chat, "sticky_option", `${name} ${value ?? ""}`);
}

/**
 * Appends a sticky `endpoint:` message ([DIVERGE D14]: Ruby emits a
 * non-sticky `option: endpoint …`).
 *
 * @param chat messages (modified)
 * @param name endpoint name
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { endpoint } from "./builders.ts";
 * endpoint([], "local"); // [{ role: "endpoint", content: "local" }]
 * ```
 */
export function endpoint(chat: Message[], name: string): Chat {
  return message(chat, "endpoint", name);
}

/**
 * Appends a sticky `model:` message ([DIVERGE D14]).
 *
 * @param chat messages (modified)
 * @param name model name
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { model } from "./builders.ts";
 * model([], "gpt-4o-mini");
 * ```
 */
export function model(chat: Message[], name: string): Chat {
  return message(chat, "model", name);
}

/**
 * Appends `import: ref` (compile splices in that chat, compiled).
 *
 * @param chat messages (modified)
 * @param ref chat file reference
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { importChat } from "./builders.ts";
 * importChat([], "intro.chat");
 * ```
 */
export function importChat(chat: Message[], ref: string): Chat {
  return message(chat, "import", ref);
}

/**
 * Appends `last: ref` (compile takes that chat's last non-empty message).
 *
 * @param chat messages (modified)
 * @param ref chat file reference
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { importLast } from "./builders.ts";
 * importLast([], "previous.chat");
 * ```
 */
export function importLast(chat: Message[], ref: string): Chat {
  return message(chat, "last", ref);
}

/**
 * Appends `continue: ref` (compile takes that chat's last message with
 * content, possibly a `previous_response_id`).
 *
 * @param chat messages (modified)
 * @param ref chat file reference
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { continueChat } from "./builders.ts";
 * continueChat([], "session.chat");
 * ```
 */
export function continueChat(chat: Message[], ref: string): Chat {
  return message(chat, "continue", ref);
}

/**
 * Appends `file: path` (compile inlines it as `<file name="path">…</file>`).
 *
 * @param chat messages (modified)
 * @param path file reference
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { file } from "./builders.ts";
 * file([], "notes.md");
 * ```
 */
export function file(chat: Message[], path: string): Chat {
  return message(chat, "file", path);
}

/**
 * Appends `directory: path` (compile inlines every file below it).
 *
 * @param chat messages (modified)
 * @param path directory reference
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { directory } from "./builders.ts";
 * directory([], "docs");
 * ```
 */
export function directory(chat: Message[], path: string): Chat {
  return message(chat, "directory", path);
}

/**
 * Appends `pdf: path` (sent as a document part).
 *
 * @param chat messages (modified)
 * @param path PDF path or URL
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { pdf } from "./builders.ts";
 * pdf([], "paper.pdf");
 * ```
 */
export function pdf(chat: Message[], path: string): Chat {
  return message(chat, "pdf", path);
}

/**
 * Appends `image: path` (sent as an image part).
 *
 * @param chat messages (modified)
 * @param path image path or URL
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { image } from "./builders.ts";
 * image([], "figure.png");
 * ```
 */
export function image(chat: Message[], path: string): Chat {
  return message(chat, "image", path);
}

/**
 * Appends `introduce: Workflow` (a user message documenting the workflow;
 * it declares no tools).
 *
 * @param chat messages (modified)
 * @param workflow workflow name
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { introduce } from "./builders.ts";
 * introduce([], "Baking");
 * ```
 */
export function introduce(chat: Message[], workflow: string): Chat {
  return message(chat, "introduce", workflow);
}

/**
 * Appends a `format` message: `json`, a type name, a schema file name, a
 * schema object, or null (which cancels an earlier format).
 *
 * @param chat messages (modified)
 * @param value the format
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { format } from "./builders.ts";
 * format([], { type: "object", properties: { n: { type: "integer" } } });
 * ```
 */
export function format(chat: Message[], value: string | Record<string, unknown> | null): Chat {
  return message(chat, "format", value);
}

/**
 * Appends a `tool` declaration; the parts are joined with a newline (as in
 * Ruby), e.g. `tool(chat, "Baking", "bake_muffin_tray")`.
 *
 * @param chat messages (modified)
 * @param parts workflow, task and input names (shell-word tokens)
 * @returns `chat`
 *
 * @example
 * ```ts
 * import { tool } from "./builders.ts";
 * tool([], "Baking", "bake_muffin_tray"); // content "Baking\nbake_muffin_tray"
 * ```
 */
export function tool(chat: Message[], ...parts: string[]): Chat {
  return message(chat, "tool", parts.join("\n"));
}

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
 * association([], "genes", "genes.tsv", { fields: ["name", "chr"] }); // "genes genes.tsv fields=name,chr"
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
