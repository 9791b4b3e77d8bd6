import assert from "node:assert/strict";
import { extractTools, shellWords } from "../../src/chat/tool_directives.ts";
import { isScoutError } from "../../src/errors.ts";
import type { Message } from "../../src/chat/types.ts";

Deno.test("extractTools takes every directive out, in order, with shell words and positions", () => {
  const chat: Message[] = [
    { role: "system", content: "sys" },
    { role: "tool", content: "Baking whisk eggs style=soft" },
    { role: "user", content: "go" },
    { role: "mcp", content: `stdio "npx -y server" read` },
    { role: "introduce", content: "Baking" },
    { role: "clear_associations", content: "" },
    { role: "assistant", content: "ok" },
  ];
  const copy = structuredClone(chat);
  const r = extractTools(chat);
  assert.deepEqual(r.chat.map((m) => m.role), ["system", "user", "assistant"]);
  assert.deepEqual(r.directives.map((d) => [d.role, d.words, d.position]), [
    ["tool", ["Baking", "whisk", "eggs", "style=soft"], 1],
    ["mcp", ["stdio", "npx -y server", "read"], 2],
    ["introduce", ["Baking"], 2],
    ["clear_associations", [], 2],
  ]);
  assert.deepEqual(chat, copy, "input not mutated");
});

Deno.test("extractTools: an unbalanced quote is an invalid_input error naming the text", () => {
  assert.throws(
    () => extractTools([{ role: "tool", content: `Wf "open` }]),
    (e) => isScoutError(e, "invalid_input") && /Unbalanced quote in "Wf "open"/.test(e.message),
  );
  assert.deepEqual(shellWords(`a\\ b 'c d'`), ["a b", "c d"]);
});

Deno.test('shellWords: inside double quotes a backslash escapes only $ ` " \\ and newline (Ruby Shellwords)', () => {
  assert.deepEqual(shellWords(`stdio "C:\\tools\\srv.exe --x" read`), [
    "stdio",
    "C:\\tools\\srv.exe --x",
    "read",
  ]);
  assert.deepEqual(shellWords(`"a\\"b" "c\\$d" "e\\\\f" "g\\nh"`), ['a"b', "c$d", "e\\f", "g\\nh"]);
  assert.deepEqual(
    shellWords(`'x\\y' z\\w`),
    ["x\\y", "zw"],
    "single quotes keep it; bare escapes any",
  );
});
