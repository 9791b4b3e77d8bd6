/**
 * Text from the store made safe for one terminal line: {@link escapeLine}
 * (`util/one_line.ts`, shared with the error messages that echo a name).
 *
 * @module
 */
export { escapeLine } from "../util/one_line.ts";
