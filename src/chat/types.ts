/**
 * The chat data model: a chat is a plain array of plain message records.
 * No wrapper class; `JSON.stringify(chat)` is the canonical JSON form.
 *
 * @module
 */

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/**
 * One message. `role` is a lowercase `[a-z0-9_]+` word when it must survive
 * print→parse; `content` is usually a string, an object/array for structured
 * content, or null. Extra fields are preserved by transforms, never printed.
 */
export interface Message {
  /** Role name, e.g. `user`, `assistant`, `function_call`, `meta`. */
  role: string;
  /** Message body. */
  content: unknown;
  /** Extra fields (ignored by the printer). */
  [extra: string]: unknown;
}

/** A conversation: an ordered list of messages. */
export type Chat = Message[];
