/**
 * The strategy dispatcher (`prompt-strategies.md` §2): `preparePrompt` turns
 * the messages of one round into what is sent, by the named strategies in
 * order, and `registerStrategy` adds custom ones.
 *
 * @module
 */
import type { Message } from "../chat/types.ts";
import { ScoutError } from "../errors.ts";
import { type PromptConfig, type PromptSettings, resolvePromptSettings } from "./settings.ts";
import { shortenTools } from "./shorten_tools.ts";
import { shortenToolsEpoch } from "./shorten_tools_epoch.ts";

/**
 * A context strategy: a pure function from the messages of one round to what
 * is sent. It must not mutate its input (copy a message before editing it).
 */
export type PromptStrategy = (
  messages: readonly Message[],
  settings: PromptSettings,
) => Message[];

/**
 * What selects the strategies: undefined/null (the default list), a comma
 * separated string, an array of names, or a function applied alone.
 */
export type PromptStrategies =
  | string
  | readonly string[]
  | PromptFunction
  | null
  | undefined;

/** A function given instead of names: called once with the messages, result used as is. */
export type PromptFunction = (messages: readonly Message[]) => Message[];

/** The default strategy list (Ruby code: `shorten_tools_epoch`). */
export const DEFAULT_PROMPT_STRATEGIES: readonly string[] = ["shorten_tools_epoch"];

const BUILT_IN: ReadonlyMap<string, PromptStrategy> = new Map<string, PromptStrategy>([
  ["none", (messages) => messages.slice()],
  ["shorten_tools", shortenTools],
  ["shorten_tools_epoch", shortenToolsEpoch],
]);

const registry = new Map<string, PromptStrategy>();

/**
 * Registers a custom strategy under `name` (process-wide); a later
 * registration of the same name replaces the earlier one. Built-in names
 * cannot be replaced.
 *
 * @param name strategy name as used in `prompt_strategies` (no commas or spaces)
 * @param fn the strategy
 * @returns a function that removes this registration again
 * @throws ScoutError `config` for a built-in, empty or malformed name
 *
 * @example
 * ```ts
 * import { preparePrompt, registerStrategy } from "./prepare.ts";
 * const off = registerStrategy("no_system", (ms) => ms.filter((m) => m.role !== "system"));
 * preparePrompt([{ role: "system", content: "s" }, { role: "user", content: "q" }], "no_system");
 * // [{ role: "user", content: "q" }]
 * off();
 * ```
 */
export function registerStrategy(name: string, fn: PromptStrategy): () => void {
  if (!/^[^\s,]+$/.test(name)) {
    throw new ScoutError("config", `Invalid prompt strategy name ${JSON.stringify(name)}`);
  }
  if (BUILT_IN.has(name)) {
    throw new ScoutError("config", `Cannot replace the built-in prompt strategy "${name}"`);
  }
  if (typeof fn !== "function") {
    throw new ScoutError("config", `Prompt strategy "${name}" is not a function`);
  }
  registry.set(name, fn);
  return () => {
    if (registry.get(name) === fn) registry.delete(name);
  };
}

/**
 * Every strategy name currently known: the built-ins, then registered ones.
 *
 * @returns the names
 */
export function knownStrategies(): string[] {
  return [...BUILT_IN.keys(), ...registry.keys()];
}

/**
 * Normalises a strategy selection to a list of names: null/undefined → the
 * default list; a string is split on `,` with each name trimmed and empty ones
 * dropped ([TS-FIX]); an array is taken as is.
 *
 * @param strategies the selection (not a function)
 * @returns the names, validated
 * @throws ScoutError `unknown_strategy` naming the unknown name and the known
 *   ones; `config` for a non-string array entry
 */
export function strategyNames(strategies: Exclude<PromptStrategies, PromptFunction>): string[] {
  let names: string[];
  if (strategies === null || strategies === undefined) names = [...DEFAULT_PROMPT_STRATEGIES];
  else if (typeof strategies === "string") {
    names = strategies.split(",").map((s) => s.trim()).filter((s) => s !== "");
  } else if (Array.isArray(strategies)) {
    names = strategies.map((s, i) => {
      if (typeof s !== "string") {
        throw new ScoutError(
          "config",
          `Prompt strategy ${i} is ${s === null ? "null" : typeof s}, not a name`,
        );
      }
      return s.trim();
    }).filter((s) => s !== "");
  } else {
    throw new ScoutError(
      "config",
      `Prompt strategies must be a name list or a function, got ${typeof strategies}`,
    );
  }
  for (const name of names) {
    if (!BUILT_IN.has(name) && !registry.has(name)) {
      const known = knownStrategies();
      throw new ScoutError(
        "unknown_strategy",
        `Unknown prompt strategy "${name}" (known: ${known.join(", ")})`,
        { strategy: name, known },
      );
    }
  }
  return names;
}

/**
 * Prepares the prompt of one round (`prompt-strategies.md` §2): applies the
 * selected strategies left to right, each to the previous result. Settings
 * are resolved once per call from `config` (per-call values → config store →
 * environment → defaults), never memoised across calls. The input list and its
 * messages are never mutated; the result is always a new list.
 *
 * @param messages the compiled messages of the round
 * @param strategies null/undefined (default: `shorten_tools_epoch`), `"none"`,
 *   `""`, a comma list (`"none,shorten_tools"`), an array of names, or a
 *   function (applied alone, its result returned as is)
 * @param config per-call settings, a config store and an environment
 * @returns the messages to send
 * @throws ScoutError `unknown_strategy` (before anything runs) or `config`
 *
 * @example
 * ```ts
 * import { preparePrompt } from "./prepare.ts";
 * const chat = [{ role: "system", content: "sys" }, { role: "user", content: "go" }];
 * preparePrompt(chat); // a copy: nothing to compact
 * preparePrompt(chat, "shorten_tools", { maxToolChars: 50_000 });
 * ```
 */
export function preparePrompt(
  messages: readonly Message[],
  strategies?: PromptStrategies,
  config: PromptConfig = {},
): Message[] {
  if (typeof strategies === "function") return strategies(messages);
  const names = strategyNames(strategies);
  if (names.length === 0) return messages.slice();
  const settings = resolvePromptSettings(config);
  let current: readonly Message[] = messages;
  for (const name of names) {
    const fn = BUILT_IN.get(name) ?? registry.get(name)!;
    current = fn(current, settings);
  }
  return current === messages ? messages.slice() : current as Message[];
}
