import assert from "node:assert/strict";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { put } from "../support/files.ts";
import { applyTemplate, templatedLines } from "../../src/cli/llm_template.ts";

/** A project (cwd) and a SCOUT_HOME with templates in each place of the lookup order. */
async function layout(dir: string) {
  const cwd = join(dir, "proj");
  const home = join(dir, "home");
  put(cwd, "questions/fr", "Translate to French: ???");
  put(cwd, "questions/sub/deep", "deep one");
  put(cwd, "chats/system/fr", "system: shadowed by questions/fr");
  put(cwd, "chats/system/terse", "system: be terse");
  put(cwd, "chats/terse", "system: shadowed by chats/system/terse");
  put(cwd, "chats/plain", "user: from chats/");
  put(home, "questions/homey", "Home template ??? end");
  put(cwd, "local.txt", "A file: ???");
  await Deno.mkdir(join(cwd, "Agent", "Echo"), { recursive: true });
  put(cwd, "Agent/Echo/start_chat", "system: You are Echo.");
  return { cwd, env: { SCOUT_HOME: home, SCOUT_AGENT_PATH: "" }, home };
}

Deno.test("applyTemplate: ??? takes the question (first only); else appended as user; else the template", () => {
  assert.equal(applyTemplate("A ??? B ???", "q"), "A q B ???");
  assert.equal(applyTemplate("system: x", "q"), "system: x\nuser: q");
  assert.equal(applyTemplate("system: x", ""), "system: x");
  assert.equal(applyTemplate("A ???", "$& $1"), "A $& $1"); // no replacement patterns
});

Deno.test("templatedLines: each line of the templated question in the question or the template", () => {
  const at = templatedLines("system: x\n\nQ: ???\n\nfile: a", "one\ntwo");
  const where = (line: number) => `${at(line).inQuestion ? "q" : "t"}${at(line).line}`;
  // system: x | "" | Q: one | two | "" | file: a
  assert.deepEqual([1, 2, 3, 4, 5, 6].map(where), ["t1", "t2", "q1", "q2", "t4", "t5"]);
  // no ???: the question comes as a user message on the line after the template
  assert.deepEqual(templatedLines("system: x", "a\nb")(3), { inQuestion: true, line: 2 });
  assert.deepEqual(templatedLines("system: x", "a")(1), { inQuestion: false, line: 1 });
  assert.deepEqual(templatedLines("system: x", "")(1), { inQuestion: false, line: 1 });
});

/**
 * Runs `fn`, counting the calls of `String.prototype.split` on strings of
 * `min` characters or more: how often something measures a whole text.
 */
async function splitsOfLong<T>(min: number, fn: () => Promise<T>): Promise<[T, number]> {
  const split = String.prototype.split;
  let calls = 0;
  const counted = function (this: string, ...args: unknown[]) {
    if (this.length >= min) calls++;
    return (split as (...a: unknown[]) => string[]).apply(this, args);
  };
  Object.defineProperty(String.prototype, "split", { value: counted, configurable: true });
  try {
    return [await fn(), calls];
  } finally {
    Object.defineProperty(String.prototype, "split", { value: split, configurable: true });
  }
}

Deno.test("llm ask -t measures the template once, not once per message: linear in its lines (R164-1)", async () => {
  // before, naming each message's line re-split the whole template and question: 20,000
  // lines took 11 s, and a SIGTERM waited for it; counted here, not timed
  await using dir = await tempDir();
  const body = Array.from({ length: 2000 }, (_, i) => `user: line ${i}\n`).join("");
  const shapes = [["appended", body, 2002], ["marked", `${body}user: ???\n`, 2003]] as const;
  for (const [name, text, line] of shapes) {
    put(dir.path, name, `${text}\nfile: missing.txt\n`);
    const [r, splits] = await splitsOfLong(
      body.length,
      () =>
        runMain(["llm", "ask", "--dry-run", "-t", name, "hi"], {
          cwd: dir.path,
          env: { SCOUT_HOME: join(dir.path, "home") },
        }),
    );
    assert.ok(splits <= 10, `${name}: the whole text split ${splits} times for 2,001 messages`);
    // each message still named by its line in the template
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stderr, new RegExp(`File not found: "missing.txt" \\(${name}:${line}\\)`));
  }
});

Deno.test("llm template lists every file under questions/ on the roots, cwd first", async () => {
  await using dir = await tempDir();
  const { cwd, env, home } = await layout(dir.path);
  const r = await runMain(["llm", "template", "ignored"], { cwd, env });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.stdout.split("\n").filter((l) => l !== ""), [
    join(cwd, "questions", "fr"),
    join(cwd, "questions", "sub", "deep"),
    join(home, "questions", "homey"),
  ]);
  const j = await runMain(["llm", "template", "--json"], { cwd, env });
  assert.equal(JSON.parse(j.stdout).templates.length, 3);
  const empty = await runMain(["llm", "template"], {
    cwd: join(cwd, "questions", "sub"),
    env: { SCOUT_HOME: join(dir.path, "none") },
  });
  assert.deepEqual([empty.code, empty.stdout], [0, ""]);
});

Deno.test("llm ask -t follows the lookup order: file, questions/, chats/system/, chats/, over the roots", async () => {
  await using dir = await tempDir();
  const { cwd, env } = await layout(dir.path);
  const ask = (t: string, q = "good morning") =>
    runMain(["llm", "ask", "-t", t, "--dry-run", q], { cwd, env });
  const cases: [string, RegExp][] = [
    ["fr", /user:\n\nTranslate to French: good morning\n/],
    ["terse", /system:\n\nbe terse\n\nuser:\n\ngood morning/],
    ["plain", /user:\n\nfrom chats\/\n\nuser:\n\ngood morning/],
    ["homey", /Home template good morning end/],
    ["local.txt", /A file: good morning/],
  ];
  for (const [t, re] of cases) {
    const r = await ask(t);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, re, t);
    assert.doesNotMatch(r.stdout, /shadowed/, t);
  }
  const without = await runMain(["llm", "ask", "--dry-run", "good morning"], { cwd, env });
  assert.doesNotMatch(without.stdout, /Translate/);
  const missing = await ask("nope");
  assert.equal(missing.code, 2); // -t's value: a usage error (R94-4), the hint after the line
  assert.match(missing.stderr, /Template "nope" not found \(searched .*questions/);
  assert.equal(missing.stderr.trim().split("\n").length, 2);
});

Deno.test("agent ask -t puts the question into the template too", async () => {
  await using dir = await tempDir();
  const { cwd, env } = await layout(dir.path);
  const r = await runMain(["agent", "ask", "Echo", "-t", "fr", "--dry-run", "bonjour?"], {
    cwd,
    env,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Translate to French: bonjour\?/);
  assert.match(r.stdout, /You are Echo/);
});
