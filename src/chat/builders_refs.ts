/**
 * Message builders for references: imports, files, media,
 * workflows, formats, tools.
 * Re-exported by `builders.ts` (`chat.md` §8).
 *
 * @module
 */
import type { Chat, Message } from "./types.ts";
import { message } from "./builders_roles.ts";

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
