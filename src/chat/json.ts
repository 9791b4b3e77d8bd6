/**
 * JSON answers (`chat.md` §8 `parseJson`): models often wrap JSON in a
 * ```` ```json ```` fence; this takes what is inside the last one. And the
 * `{content}` unwrapping of a JSON answer ({@link unwrapContent}).
 *
 * @module
 */
import { ScoutError } from "../errors.ts";
import { clipEnd } from "../util/clip.ts";

const FENCE = "```json\n";

/**
 * Parses a model's JSON answer. Empty/null → null. If the text contains
 * ```` ```json ````, the JSON is what lies between the **last**
 * ```` ```json⏎ ```` and the **last** ```` ``` ```` after it (as Ruby's
 * greedy regex); plain ```` ``` ```` fences are not unwrapped.
 *
 * @param text the answer
 * @returns the parsed value
 * @throws ScoutError `json_parse` when the (unwrapped) text is not JSON
 *
 * @example
 * ```ts
 * import { parseJson } from "./json.ts";
 * parseJson('Sure:\n```json\n{"n": 1}\n```\n'); // { n: 1 }
 * ```
 */
export function parseJson(text: string | null | undefined): unknown {
  if (text === null || text === undefined || text === "") return null;
  let body = text;
  if (text.includes("```json")) {
    const end = text.lastIndexOf("```");
    const start = end < FENCE.length ? -1 : text.lastIndexOf(FENCE, end - FENCE.length);
    if (start !== -1) body = text.slice(start + FENCE.length, end);
  }
  try {
    return JSON.parse(body);
  } catch (e) {
    const shown = clipEnd(body, 60);
    throw new ScoutError(
      "json_parse",
      `Cannot parse JSON answer "${shown}": ${(e as Error).message}`,
      {
        cause: e,
      },
    );
  }
}

/**
 * A JSON answer as `json` gives it (`chat.md` §8, D12; `agents.md` §1.3): an
 * object whose only key is `content` yields that value (a schema can only
 * ask for an object, so a list comes wrapped); anything else is itself.
 *
 * @param v a parsed answer
 * @returns `v.content` for `{content}`, else `v`
 *
 * @example
 * ```ts
 * import { unwrapContent } from "./json.ts";
 * unwrapContent({ content: [1, 2] }); // [1, 2]
 * unwrapContent({ content: 1, n: 2 }); // { content: 1, n: 2 }
 * ```
 */
export function unwrapContent(v: unknown): unknown {
  if (typeof v === "object" && v !== null && !Array.isArray(v)) {
    const keys = Object.keys(v);
    if (keys.length === 1 && keys[0] === "content") return (v as { content: unknown }).content;
  }
  return v;
}
