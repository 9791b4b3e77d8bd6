/**
 * The `@example` of every symbol `mod.ts` exports is one a library user can
 * paste: what it imports from the project is exported by `mod.ts`, so the
 * import works with the package's name in place of the file's (R110-4: the
 * example of `withWarningSink` imported `warnOnce`, which the package does not
 * export). `deno task check` type-checks the examples against the files they
 * name; this checks the names against the package's face. Symbols and
 * examples come from `deno doc --json mod.ts`, which follows every re-export.
 */
import assert from "node:assert/strict";
import { DENO, ROOT } from "./support/cli.ts";

interface DocTag {
  kind: string;
  doc?: string;
}
interface DocSymbol {
  name: string;
  declarations: { location: { filename: string }; jsDoc?: { tags?: DocTag[] } }[];
}

/** The symbols `mod.ts` exports, as `deno doc` lists them. */
async function exportedSymbols(): Promise<DocSymbol[]> {
  const out = await new Deno.Command(DENO, {
    args: ["doc", "--json", "mod.ts"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const doc = JSON.parse(new TextDecoder().decode(out.stdout));
  const mod = Object.entries(doc.nodes as Record<string, { symbols: DocSymbol[] }>)
    .find(([url]) => url.endsWith("/mod.ts"));
  assert.ok(mod !== undefined, "deno doc lists mod.ts");
  return mod[1].symbols;
}

/**
 * The names an example imports from the project (a relative path), each
 * with the path; a default or namespace import from the project is named
 * by its whole clause (`mod.ts` has neither to give).
 */
function projectImports(example: string): { name: string; from: string }[] {
  const out: { name: string; from: string }[] = [];
  const re = /^\s*import\s+(type\s+)?([^;]*?)\s+from\s+["']([^"']+)["']/gm;
  for (const m of example.matchAll(re)) {
    const [, , clause, from] = m;
    if (!from!.startsWith(".")) continue; // a package: zod, npm:…
    const braces = /^\{([^}]*)\}$/.exec(clause!.trim());
    if (braces === null) {
      out.push({ name: clause!.trim(), from: from! });
      continue;
    }
    for (const part of braces[1]!.split(",")) {
      const name = part.trim().replace(/^type\s+/, "").split(/\s+as\s+/)[0]!.trim();
      if (name !== "") out.push({ name, from: from! });
    }
  }
  return out;
}

Deno.test("projectImports reads named, renamed, type and default imports of project files", () => {
  const ex = 'import { a, type B, c as d } from "./x.ts";\nimport { z } from "zod";\n' +
    'import type { E } from "../../mod.ts";\nimport * as m from "./m.ts";\nconst x = 1;';
  assert.deepEqual(projectImports(ex), [
    { name: "a", from: "./x.ts" },
    { name: "B", from: "./x.ts" },
    { name: "c", from: "./x.ts" },
    { name: "E", from: "../../mod.ts" },
    { name: "* as m", from: "./m.ts" },
  ]);
});

Deno.test("every example of a mod.ts export imports only what mod.ts exports", async () => {
  const symbols = await exportedSymbols();
  const exported = new Set(symbols.map((s) => s.name));
  assert.ok(exported.has("withWarningSink") && exported.has("parse") && exported.has("Agent"));
  const problems: string[] = [];
  let examples = 0;
  for (const s of symbols) {
    for (const d of s.declarations) {
      for (const tag of d.jsDoc?.tags ?? []) {
        if (tag.kind !== "example") continue;
        examples++;
        for (const { name, from } of projectImports(tag.doc ?? "")) {
          if (exported.has(name)) continue;
          const file = d.location.filename.replace(/^file:\/\/.*?\/(src\/)/, "$1");
          problems.push(`${file}: the example of ${s.name} imports ${name} (from "${from}")`);
        }
      }
    }
  }
  assert.ok(examples >= 100, `only ${examples} examples found`);
  assert.deepEqual(problems, [], problems.join("\n"));
});
