/**
 * Provider-safe tool names (R96-6): an MCP server may list names that
 * OpenAI's and Anthropic's function-name rules refuse (`ns.tool/slash`, more
 * than 64 characters) — so may a workflow task (`make.cake`) or a knowledge
 * base database (`my.db`) — and one such tool would make every request of the
 * chat fail. Such a tool is offered under an alias — disallowed characters
 * replaced by `_`, shortened to 64 with a short hash of the real name when
 * needed, unique among the tools of its source — and called under its real
 * name.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { FunctionToolDefinition, ToolEntry } from "./types.ts";

/** A function name every provider accepts (OpenAI's rule, the strictest). */
export const PROVIDER_FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

function hash8(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 8);
}

/** `base` shortened to fit 64 characters with `_<hash>` after it. */
function hashed(base: string, real: string, attempt: number): string {
  const h = hash8(attempt ? `${real}#${attempt}` : real);
  return base ? `${base.slice(0, 64 - 9)}_${h}` : `tool_${h}`;
}

/**
 * Aliases for the names a provider would refuse.
 *
 * @param names the server's tool names (distinct)
 * @returns real name → alias, only for the names that need one; the aliases
 *   differ from each other and from the names kept as they are
 */
export function providerToolAliases(names: readonly string[]): Map<string, string> {
  const taken = new Set(names.filter((n) => PROVIDER_FUNCTION_NAME.test(n)));
  const out = new Map<string, string>();
  for (const real of names) {
    if (taken.has(real) && PROVIDER_FUNCTION_NAME.test(real)) continue;
    const base = real.replace(/[^a-zA-Z0-9_-]/g, "_");
    let alias = base && base.length <= 64 && !taken.has(base) ? base : hashed(base, real, 0);
    for (let i = 1; taken.has(alias); i++) alias = hashed(base, real, i);
    taken.add(alias);
    out.set(real, alias);
  }
  return out;
}

/**
 * Entries whose function names a provider would refuse renamed to aliases,
 * each calling its implementation with the real name.
 *
 * @param entries the tools of one source (an `mcp:` line, a `tool:` line…)
 * @param renamed receives each real name and its alias
 * @returns the entries, the renamed ones replaced (the others as given)
 */
export function withProviderNames(
  entries: readonly ToolEntry[],
  renamed?: (real: string, alias: string) => void,
): ToolEntry[] {
  const fnName = (e: ToolEntry) =>
    e.definition.type === "function"
      ? (e.definition as FunctionToolDefinition).function?.name
      : undefined;
  const names = entries.map(fnName).filter((n): n is string => typeof n === "string");
  const aliases = providerToolAliases([...new Set(names)]);
  if (!aliases.size) return [...entries];
  return entries.map((e) => {
    const real = fnName(e);
    const alias = real === undefined ? undefined : aliases.get(real);
    if (real === undefined || alias === undefined) return e;
    renamed?.(real, alias);
    const fn = (e.definition as FunctionToolDefinition).function;
    const impl = e.impl;
    return {
      ...e,
      definition: { ...e.definition, function: { ...fn, name: alias } } as FunctionToolDefinition,
      ...(impl ? { impl: (_name, args, ctx) => impl(real, args, ctx) } : {}),
    };
  });
}
