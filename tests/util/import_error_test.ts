/**
 * `importFailure`: the text and place of a failed import of a user's module,
 * from Bun's build errors (one, or several in an AggregateError) and from
 * Deno's message. The Bun shapes are those a compiled binary throws (the
 * binary itself is run in tests/e2e/script_syntax_error_test.ts).
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { importFailure } from "../../src/util/import_error.ts";
import { scriptLine } from "../../src/util/script_line.ts";
import { tempDir } from "../support/cli.ts";

const FILE = "/w/workflows/W/workflow.ts";

/** A Bun `BuildMessage`: an Error with the place of the error. */
function buildMessage(message: string, file: string, line: number) {
  return Object.assign(new Error(message), {
    name: "BuildMessage",
    position: { lineText: "  const x = ;", file, namespace: "file", line, column: 13 },
  });
}

Deno.test("Bun, one build error: its text, file and line", () => {
  assert.deepEqual(importFailure(buildMessage("Unexpected ;", FILE, 2), FILE), {
    text: "Unexpected ;",
    file: FILE,
    line: 2,
  });
});

Deno.test("Bun, several build errors: the first one's text and place, and how many more", () => {
  const e = Object.assign(new AggregateError([], `3 errors building "${FILE}"`), {
    errors: [
      buildMessage('Cannot use "let" as an identifier here', FILE, 3),
      buildMessage("Unexpected ;", FILE, 4),
      buildMessage("Unexpected end of file", FILE, 5),
    ],
    // the binary's own place, where the error was made: not the user's
    line: 9999,
    sourceURL: "/$bunfs/root/scout-ai",
  });
  assert.deepEqual(importFailure(e, FILE), {
    text: 'Cannot use "let" as an identifier here (+2 more)',
    file: FILE,
    line: 3,
  });
});

Deno.test("Bun, the error is in a module the file imports: that module is named", () => {
  const helper = "/w/workflows/W/helper.ts";
  assert.deepEqual(importFailure(buildMessage("Unexpected ;", helper, 1), FILE), {
    text: "Unexpected ;",
    file: helper,
    line: 1,
  });
});

Deno.test("Deno: the line from its message when it is in the file; the message kept whole", () => {
  const message = `Expression expected\n\n  | 2 |   const x = ;\n\n    at file://${FILE}:2:13`;
  assert.deepEqual(importFailure(new SyntaxError(message), FILE), {
    text: "Expression expected | 2 |   const x = ; at file:///w/workflows/W/workflow.ts:2:13",
    file: FILE,
    line: 2,
  });
  // elsewhere (a module it imports): the file alone, as before
  const other = importFailure(new Error("Expression expected at file:///w/h.ts:1:19"), FILE);
  assert.deepEqual(other, { text: "Expression expected at file:///w/h.ts:1:19", file: FILE });
});

Deno.test("neither: the message on one line, uncoloured, and the file without a line", () => {
  const r = importFailure(
    new Error("\u001b[31mCannot find module './x.ts'\u001b[0m\n  from y"),
    FILE,
  );
  assert.deepEqual(r, { text: "Cannot find module './x.ts' from y", file: FILE });
  // a Bun ResolveMessage has a null position; a thrown non-error is its string
  assert.deepEqual(importFailure(Object.assign(new Error("m"), { position: null }), FILE), {
    text: "m",
    file: FILE,
  });
  assert.deepEqual(importFailure("boom", FILE), { text: "boom", file: FILE });
});

Deno.test("a runtime error of the module's code: the line of its stack's frame in the file (R75-6b)", () => {
  const deno = Object.assign(new ReferenceError("foo is not defined"), {
    stack: `ReferenceError: foo is not defined\n    at file://${FILE}:2:1`,
  });
  assert.deepEqual(importFailure(deno, FILE), { text: "foo is not defined", file: FILE, line: 2 });
  // Bun's frames carry the path; a frame inside a function has its name first
  const bun = Object.assign(new TypeError("x.y is not a function"), {
    stack: `TypeError: x.y is not a function\n    at helper (/w/lib.ts:9:3)\n    at ${FILE}:7:5`,
  });
  assert.deepEqual(importFailure(bun, FILE), {
    text: "x.y is not a function",
    file: FILE,
    line: 7,
  });
  assert.equal(scriptLine(bun, "/w/lib.ts"), 9);
  // no frame in the file: no line
  assert.equal(scriptLine(bun, "/w/other.ts"), undefined);
  assert.equal(scriptLine("boom", FILE), undefined);
});

Deno.test("scriptLine finds a module under a path with a space and non-ASCII letters", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "My Äpfel", "agent.ts");
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, "export function boom() {\n  throw new Error('x');\n}\n");
  const mod = await import(pathToFileURL(file).href);
  let thrown: unknown;
  try {
    mod.boom();
  } catch (e) {
    thrown = e;
  }
  // Deno writes such a frame as file:///…/My Äpfel/agent.ts, not percent-encoded
  assert.equal(scriptLine(thrown, file), 2);
});
