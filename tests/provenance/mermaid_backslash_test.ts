/**
 * Mermaid reads a literal backslash-n in a label as a line break: a chat
 * named `a\nb.chat` (a backslash, not a newline) or a name escaped as
 * `Cr\tit` is written with `\` as the entity `#92;` (R99-4).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { mermaidText } from "../../src/provenance/render_mermaid.ts";
import { runMain } from "../support/cli.ts";
import { tmp, write } from "./support.ts";

Deno.test("mermaidText: a backslash is #92; (R99-4)", () => {
  assert.equal(mermaidText("a\\nb\\u001b (x)"), "a#92;nb#92;u001b #40;x#41;");
  assert.equal(mermaidText("two\nlines"), "two<br/>lines");
});

Deno.test("--mermaid: a chat named a\\nb.chat is one line (R99-4)", async () => {
  await using d = await tmp();
  write(join(d.path, "a\\nb.chat"), "user: hi\n\nassistant: ok\n");
  const r = await runMain(["llm", "prov", "a\\nb.chat", "--mermaid"], {
    cwd: d.path,
    env: { SCOUT_HOME: join(d.path, "home"), NO_COLOR: "1" },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stdout.includes('n0("Chat: a#92;nb.chat<br/>0 tokens")'), r.stdout);
  assert.ok(!r.stdout.includes("\\"), r.stdout);
});
