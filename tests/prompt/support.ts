/**
 * Builders for the worked examples of `prompt-strategies.md` §7 and a
 * notation renderer (`system user C3t O3t N!`) to compare with the spec text.
 */
import type { Message } from "../../src/chat/types.ts";
import { defaultPromptSettings, type PromptSettings } from "../../src/prompt/settings.ts";

/** `Ai` = `"a<i>"` + 298 × `x` (call argument value). */
export const argOf = (i: number): string => `a${i}` + "x".repeat(298);
/** `Bi` = `"o<i>"` + 498 × `y` (output content). */
export const outOf = (i: number): string => `o${i}` + "y".repeat(498);

/** `Ci`: `{"name":"f","arguments":{"q":A},"id":"ci"}`. */
export function call(i: number, arg: unknown = argOf(i)): Message {
  return {
    role: "function_call",
    content: JSON.stringify({ name: "f", arguments: { q: arg }, id: `c${i}` }),
  };
}

/** `Oi`: `{"name":"f","content":B,"id":"ci"}`. */
export function output(i: number, content: unknown = outOf(i)): Message {
  return {
    role: "function_call_output",
    content: JSON.stringify({ name: "f", content, id: `c${i}` }),
  };
}

/** `system "sys"`, `user "go"`, then pairs 1…n (with optional per-pair overrides). */
export function pairs(
  n: number,
  opts: {
    arg?: (i: number) => unknown;
    out?: (i: number) => unknown;
    after?: (i: number) => Message[];
  } = {},
): Message[] {
  const msgs: Message[] = [{ role: "system", content: "sys" }, { role: "user", content: "go" }];
  for (let i = 1; i <= n; i++) {
    msgs.push(
      call(i, opts.arg ? opts.arg(i) : argOf(i)),
      output(i, opts.out ? opts.out(i) : outOf(i)),
    );
    if (opts.after) msgs.push(...opts.after(i));
  }
  return msgs;
}

/** Settings: defaults overridden by the given fields. */
export function settings(over: Partial<PromptSettings> = {}): PromptSettings {
  return { ...defaultPromptSettings(), ...over };
}

/** Epoch settings in the spec's short form. */
export function epoch(
  threshold: number,
  full: number,
  compacted: number,
  size: number,
): PromptSettings {
  return settings({
    epochToolCallThreshold: threshold,
    epochFullToolCalls: full,
    epochCompactedToolCalls: compacted,
    epochSize: size,
  });
}

/**
 * The spec's notation for an output list, given the input it came from:
 * `Ci`/`Oi` (suffix `t` when the content differs from the input message with
 * the same id), `N!` for the notice, role names otherwise.
 */
export function notation(out: readonly Message[], input: readonly Message[]): string {
  const idOf = (m: Message): string | null => {
    try {
      const id = JSON.parse(m.content as string).id;
      return typeof id === "string" ? id : null;
    } catch {
      return null;
    }
  };
  const original = new Map<string, unknown>();
  for (const m of input) {
    if (m.role === "function_call" || m.role === "function_call_output") {
      original.set(m.role + idOf(m), m.content);
    }
  }
  return out.map((m) => {
    if (m.role === "function_call" || m.role === "function_call_output") {
      const id = idOf(m);
      if (id === null) return m.role === "function_call" ? "C?" : "O?";
      const label = (m.role === "function_call" ? "C" : "O") + id.slice(1);
      return original.get(m.role + id) === m.content ? label : label + "t";
    }
    if (
      m.role === "user" && typeof m.content === "string" &&
      m.content.startsWith("=== Context Management ===")
    ) {
      return "N!";
    }
    return m.role;
  }).join(" ");
}

/** The `Compacted`/`Removed` counts of the notice in `out`, or null. */
export function noticeCounts(out: readonly Message[]): [number, number] | null {
  const n = out.find((m) =>
    typeof m.content === "string" && m.content.startsWith("=== Context Management ===")
  );
  if (!n) return null;
  const c = /Compacted: (\d+)/.exec(n.content as string)!;
  const r = /Removed: (\d+)/.exec(n.content as string)!;
  return [Number(c[1]), Number(r[1])];
}
