/**
 * The public face of chat compilation (re-exported by `chat/mod.ts`):
 * {@link compileFile}, {@link compileText}, {@link compile}, {@link toMessages},
 * {@link findFile}, the reader interface and the job-role resolver interface.
 *
 * @module
 */
export {
  ALLOW_ROLES_KEY,
  CHAT_ROLES,
  compile,
  compileFile,
  compileText,
  toMessages,
} from "./compile.ts";
export type { CompileOptions } from "./compile.ts";
export { defaultChatDirs, findFile, isUrlRef, nodeFileReader } from "./find_file.ts";
export type { ChatFileReader, FindFileOptions } from "./find_file.ts";
export { JOB_CALL_ID_MAX, jobCallId, jobMessages, parseTaskLine } from "./compile_jobs.ts";
export type { JobRoleResolver, JobSnapshot, TaskRequest } from "./compile_jobs.ts";
