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
export {
  assistant,
  endpoint,
  message,
  model,
  option,
  stickyOption,
  system,
  user,
} from "./builders_roles.ts";
export {
  continueChat,
  directory,
  file,
  format,
  image,
  importChat,
  importLast,
  introduce,
  pdf,
  tool,
} from "./builders_refs.ts";
export {
  association,
  execTask,
  inlineJob,
  inlineTask,
  job,
  tag,
  tagText,
  task,
} from "./builders_tasks.ts";
export type { TagOptions } from "./builders_tasks.ts";
