/**
 * The static import declarations of a JavaScript/TypeScript module's source
 * (`import x from "./a.ts"`, `import "./b.ts"`, `export { y } from "./c.ts"`),
 * with the line of each specifier. Comments and template literals are
 * skipped; `import type` / `export type` declarations are left out (no
 * runtime loads them), and so are dynamic `import(…)` calls.
 *
 * An approximation, not a parser: a declaration must begin its line, as
 * formatted code has it. Used to find a missing module before importing
 * (`./missing_import.ts`).
 *
 * @module
 */

/** One static import: its specifier and the 1-based line the specifier is on. */
export interface StaticImport {
  /** The specifier as written (`./helper.ts`, `npm:zod`…). */
  specifier: string;
  /** 1-based line of the specifier. */
  line: number;
}

/** Replaces comments and template literal text by spaces (newlines kept). */
function maskComments(source: string): string {
  const out = source.split("");
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== "\n") out[k] = " ";
  };
  const braces: number[] = []; // for each open `${`, the brace depth it returns to
  let depth = 0;
  let i = 0;
  const template = () => { // from after a backtick or a `}` closing `${`; blanks the text
    const start = i;
    for (; i < source.length; i++) {
      if (source[i] === "\\") i++;
      else if (source[i] === "`") return blank(start, i++);
      else if (source[i] === "$" && source[i + 1] === "{") {
        blank(start, i);
        braces.push(depth++);
        i += 2;
        return;
      }
    }
    blank(start, i);
  };
  while (i < source.length) {
    const c = source[i]!;
    if (c === "/" && source[i + 1] === "/") {
      const end = source.indexOf("\n", i);
      blank(i, end < 0 ? source.length : end);
      i = end < 0 ? source.length : end;
    } else if (c === "/" && source[i + 1] === "*") {
      const end = source.indexOf("*/", i + 2);
      blank(i, end < 0 ? source.length : end + 2);
      i = end < 0 ? source.length : end + 2;
    } else if (c === '"' || c === "'") {
      for (i++; i < source.length && source[i] !== c && source[i] !== "\n"; i++) {
        if (source[i] === "\\") i++;
      }
      i++;
    } else if (c === "`") {
      i++;
      template();
    } else if (c === "{") {
      depth++;
      i++;
    } else if (c === "}") {
      depth--;
      i++;
      if (braces.length > 0 && braces[braces.length - 1] === depth) {
        braces.pop();
        template();
      }
    } else i++;
  }
  return out.join("");
}

// `import "x"`; `import|export <names> from "x"` (names: identifiers, `*`, `as`, `,`, one `{…}`)
const DECLARATION =
  /^[ \t]*(?:import[ \t]*(["'])([^"'\n]+)\1|(?:import|export)[ \t]+(?!type\b)[\w$*, \t]*(?:\{[^{}'"]*\}[ \t]*)?from[ \t]*(["'])([^"'\n]+)\3)/gm;

/**
 * The static imports of a module's source, in order.
 *
 * @param source the module's text
 * @returns each import's specifier and line
 *
 * @example
 * ```ts
 * import { staticImports } from "./static_imports.ts";
 * staticImports('// x\nimport { a } from "./a.ts";\n'); // [{ specifier: "./a.ts", line: 2 }]
 * ```
 */
export function staticImports(source: string): StaticImport[] {
  const masked = maskComments(source);
  const found: StaticImport[] = [];
  for (const m of masked.matchAll(DECLARATION)) {
    const specifier = m[2] ?? m[4]!;
    const at = m.index + m[0].lastIndexOf(specifier);
    found.push({ specifier, line: masked.slice(0, at).split("\n").length });
  }
  return found;
}
