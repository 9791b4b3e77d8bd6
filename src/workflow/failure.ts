/**
 * How a failure is recorded in `.info` (`workflow.md` §3.2, §7.3): status
 * `error`, the Marshal-dumped `exception`, `end`, `backtrace`, and a
 * `"Class: message"` entry in `messages`.
 *
 * @module
 */
import { isScoutError, thrownMessage } from "../errors.ts";
import { redactSecretsIn } from "../util/secrets.ts";
import { marshalException } from "./marshal.ts";
import { rubyTime } from "./time.ts";

/** ScoutError codes that are deliberate failures (Ruby `ScoutException`, not recoverable). */
const DELIBERATE = new Set(["parameter", "invalid_input", "job_failed"]);

/**
 * The Ruby class an error is recorded as: `ScoutException` for deliberate
 * failures (parameter errors, `fail()` from a task), `RuntimeError` otherwise.
 *
 * @param e what was thrown
 * @returns the Ruby class name
 */
export function rubyExceptionClass(e: unknown): string {
  if (isScoutError(e) && typeof e.rubyClass === "string") return e.rubyClass;
  if (isScoutError(e) && DELIBERATE.has(e.code)) return "ScoutException";
  return "RuntimeError";
}

/**
 * Backtrace lines of an error (the stack without its message line).
 *
 * @param e what was thrown
 * @returns frames, `at` prefixes removed
 */
export function backtraceOf(e: unknown): string[] {
  if (isScoutError(e) && Array.isArray(e.backtrace)) return e.backtrace.map(String);
  const stack = e instanceof Error ? e.stack ?? "" : "";
  return stack.split("\n").filter((l) => /^\s+at /.test(l)).map((l) => l.trim().slice(3));
}

/**
 * The error a failure really is: a `job_failed` wrapper added while the
 * error travelled up from a dependency (`Job "…" failed: …`) is peeled off,
 * so a parent records the dependency's own class and message (§5, §3.2).
 *
 * @param e what was thrown
 * @returns the innermost error that is not such a wrapper
 */
export function rootFailure(e: unknown): unknown {
  let cur = e;
  while (
    isScoutError(cur) && cur.code === "job_failed" && typeof cur.job === "string" &&
    cur.cause !== undefined
  ) cur = cur.cause;
  return cur;
}

/**
 * Message of any thrown value, never throwing ({@link thrownMessage}): a
 * failure is recorded whatever the body threw (`{"code":42}`, an Error's
 * name when its message is empty, a null-prototype object).
 *
 * @param e what was thrown
 * @returns its message
 */
export function errorMessage(e: unknown): string {
  return thrownMessage(e);
}

/**
 * The info patch recording a failure, in Scout's key order
 * (`status, exception, end, backtrace, messages`); its message without
 * credentials — those of its urls, and any a provider's answer echoed
 * (`util/secrets.ts` `redactSecretsIn`, R146).
 *
 * @param e what was thrown
 * @param end when it ended (default now)
 * @returns the patch for `updateJobInfo`
 */
export function errorInfoPatch(e: unknown, end: Date = new Date()): Record<string, unknown> {
  const className = rubyExceptionClass(e);
  // `.info` is shared with whoever reads the job: no url's password, `?key=` or echoed header
  const message = redactSecretsIn(errorMessage(e));
  const backtrace = backtraceOf(e);
  return {
    status: "error",
    exception: marshalException(className, message, backtrace),
    end: rubyTime(end),
    backtrace,
    messages: [`${className}: ${message}`],
  };
}
