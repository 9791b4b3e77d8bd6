/**
 * `scout-ai llm ask` with files: `-f` attachments, `...` in QUESTION, and
 * `-f -` / `-i -` reading stdin; `--dry-run` (and with `--json`).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { setup } from "./llm_ask_support.ts";

Deno.test("-f adds files before the question; --dry-run prints the compiled chat and asks nothing", async () => {
  await using t = await setup();
  await Deno.writeTextFile(join(t.dir.path, "notes.md"), "Remember the milk.\n");
  const r = await t.run([
    "ask",
    ...t.flags,
    "-f",
    "notes.md",
    "--dry-run",
    "What should I remember?",
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /<file name="notes\.md">\nRemember the milk\.\n\n<\/file>/);
  assert.match(r.stdout, /What should I remember\?/);
  // with --json, the same messages as JSON (what a script reads)
  const j = await t.run(["ask", ...t.flags, "-f", "notes.md", "--dry-run", "--json", "Why?"]);
  assert.equal(j.code, 0, j.stderr);
  const shown = JSON.parse(j.stdout);
  assert.equal(shown.dry_run, true);
  assert.deepEqual(shown.messages.map((m: { role: string }) => m.role), ["user", "user"]);
  assert.match(shown.messages[0].content, /^<file name="notes\.md">\nRemember the milk\./);
  assert.equal(shown.messages[1].content, "Why?");
  assert.equal(t.srv.requests.length, 0);
});

Deno.test("'...' with -f takes the first file's text (not attached again), even with stdin piped (§5.1 step 3)", async () => {
  await using t = await setup();
  await Deno.writeTextFile(join(t.dir.path, "data.txt"), "FILE BODY");
  await Deno.writeTextFile(join(t.dir.path, "more.txt"), "MORE BODY");
  const dry = (args: string[], stdin: string) =>
    t.run(["ask", ...t.flags, ...args, "--dry-run", "summarize ... now"], { stdin });
  const one = await dry(["-f", "data.txt"], "");
  assert.equal(one.code, 0, one.stderr);
  assert.match(one.stdout, /summarize FILE BODY now/);
  assert.doesNotMatch(one.stdout, /<file name="data\.txt">/);
  const piped = await dry(["-f", "data.txt", "-f", "more.txt"], "STDIN TEXT");
  assert.match(piped.stdout, /summarize FILE BODY now/);
  assert.doesNotMatch(piped.stdout, /STDIN TEXT/);
  assert.match(piped.stdout, /<file name="more\.txt">\nMORE BODY/);
  const missing = await dry(["-f", "nope.txt"], "");
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /nope\.txt/);
  assert.equal(t.srv.requests.length, 0);
});

Deno.test("-f - and -i - read stdin; only one of -c -, QUESTION -, -f -, -i - may", async () => {
  await using t = await setup();
  const dry = (args: string[], stdin: string) =>
    t.run(["ask", ...t.flags, ...args, "--dry-run"], { stdin });
  const file = await dry(["-f", "-", "summarize"], "STDIN FILE");
  assert.equal(file.code, 0, file.stderr);
  assert.match(file.stdout, /<file name="stdin">\nSTDIN FILE\n<\/file>/);
  assert.match(file.stdout, /summarize/);
  const filled = await dry(["-f", "-", "summarize ... now"], "STDIN FILE");
  assert.match(filled.stdout, /summarize STDIN FILE now/);
  assert.doesNotMatch(filled.stdout, /<file name="stdin">/);
  const imported = await dry(
    ["-i", "-", "and now?"],
    "user:\n\nearlier question\n\nassistant:\n\nearlier answer\n",
  );
  assert.equal(imported.code, 0, imported.stderr);
  assert.match(imported.stdout, /earlier question[\s\S]*earlier answer[\s\S]*and now\?/);
  const both = await dry(["-f", "-", "-i", "-", "q"], "x");
  assert.equal(both.code, 2);
  assert.match(both.stderr, /Stdin can feed only one of -f -, -i -/);
  assert.equal(t.srv.requests.length, 0);
});
