/**
 * Every `@param NAME` of a doc comment in src/ names a parameter of the
 * function it documents (R151-4: two named a parameter since renamed).
 * A scan of the text, no type checker: the parameter list is the first
 * bracketed one after the comment; a destructured parameter (named in the
 * comment as its caller knows it) makes the comment's names unchecked.
 * Also: a `{@link Class.member}` to a class of the same file names a member of it.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./support/cli.ts";

/** The text of `s` from `open` (a bracket) to its matching close, exclusive; -1 when none. */
function closing(s: string, open: number): number {
  const pairs: Record<string, string> = { "(": ")", "[": "]", "{": "}", "<": ">" };
  const stack: string[] = [];
  for (let i = open; i < s.length; i++) {
    const c = s[i]!;
    if (c === "=" && s[i + 1] === ">") i++; // an arrow's `>` closes nothing
    else if (pairs[c]) stack.push(pairs[c]);
    else if (c === stack.at(-1) && stack.pop() !== undefined && stack.length === 0) return i;
  }
  return -1;
}

/** Names of the parameters of the list `(…)` at `open`; null when one is destructured. */
function paramNames(s: string, open: number): string[] | null {
  const inner = s.slice(open + 1, closing(s, open));
  const parts: string[] = [];
  let at = 0;
  for (let i = 0; i < inner.length; i++) {
    if ("([{<".includes(inner[i]!)) i = closing(inner, i);
    else if (inner[i] === ",") parts.push(inner.slice(at, i)), at = i + 1;
  }
  parts.push(inner.slice(at));
  const names = [];
  for (const p of parts.map((x) => x.trim()).filter((x) => x !== "")) {
    const m = /^(?:(?:private|public|protected|readonly)\s+)*(?:\.\.\.)?([\w$]+)/.exec(p);
    if (!m) return null; // `{ a, b }` or `[a, b]`
    names.push(m[1]!);
  }
  return names;
}

function* tsFiles(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) yield* tsFiles(join(dir, e.name));
    else if (e.name.endsWith(".ts")) yield join(dir, e.name);
  }
}

Deno.test("every @param in src/ names a parameter of the function it documents (R151-4)", () => {
  const wrong: string[] = [];
  for (const file of tsFiles(join(ROOT, "src"))) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\//g)) {
      const documented = [...m[1]!.matchAll(/@param\s+(?:\{[^}]*\}\s+)?\[?([\w$]+)/g)];
      if (documented.length === 0) continue;
      const after = m.index + m[0].length;
      const open = text.indexOf("(", after);
      const ends = text.slice(after, open).match(/^[^;{]*$/); // no body or statement between
      const names = ends ? paramNames(text, open) : null;
      if (names === null) continue;
      const line = text.slice(0, after).split("\n").length;
      for (const [, name] of documented) {
        if (!names.includes(name!)) wrong.push(`${file.slice(ROOT.length + 1)}:${line}: ${name}`);
      }
    }
  }
  assert.deepEqual(wrong, []);
});

Deno.test("every {@link Class.member} in src/ to a class of its file names a member (R151-4)", () => {
  const wrong: string[] = [];
  for (const file of tsFiles(join(ROOT, "src"))) {
    const text = readFileSync(file, "utf8");
    for (const [, cls, member] of text.matchAll(/\{@link\s+([\w$]+)\.([\w$]+)\s*\}/g)) {
      if (!new RegExp(`\\bclass ${cls}\\b`).test(text)) continue;
      const declared = new RegExp(`^\\s+(?:[a-z]+ )*${member}\\b\\s*[(<:=?!]`, "m");
      if (!declared.test(text)) wrong.push(`${file.slice(ROOT.length + 1)}: ${cls}.${member}`);
    }
  }
  assert.deepEqual(wrong, []);
});
