/**
 * The Ruby scout's flag spellings, for scripts written for it: `--nocolor`,
 * `--nobar`, `-l LEVEL`, `-d`/`--dry_run` are accepted (hidden from
 * --help); Ruby's two-letter `-in`/`-wt`, which commander would misread as
 * `-i n`/`-w t`, are refused with the flag to use instead.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { clearAgentCache } from "../../src/agent/load.ts";
import { runMain, tempDir } from "../support/cli.ts";

Deno.test("Ruby spellings: -d/--dry_run, --nocolor, --nobar are accepted; the aliases named once in --help", async () => {
  await using t = await tempDir();
  const o = { env: { SCOUT_HOME: join(t.path, "home") }, cwd: t.path };
  for (const args of [["-d"], ["--dry_run"], ["--dry_run", "--nocolor", "--nobar"]]) {
    const r = await runMain(["llm", "ask", ...args, "hello"], o);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "user:\n\nhello\n");
  }
  const ask = (await runMain(["llm", "ask", "--help"], o)).stdout;
  const root = (await runMain(["--help"], o)).stdout;
  // not in the option lists: one line each names the aliases (R94-9); --nobar has no other spelling
  // (the JSON key "dry_run" of --dry-run --json is a key, not a flag's spelling)
  const lists = (ask + root).replace(/\nAlso accepted[^\n]*\n/g, "\n").replaceAll('"dry_run"', "");
  assert.doesNotMatch(lists.replace(/^ {2}--nobar .*$/m, ""), /dry_run|nocolor|nobar|-l <level>/);
  assert.match(ask, /^Also accepted \(Scout's spellings\): -d, --dry_run for --dry-run; -l LEVEL/m);
  assert.match(root, /^Also accepted: --nocolor \(Scout's spelling of --no-color\)\.$/m);
  assert.match(root, /^ {2}--nobar +draw no progress lines on stderr$/m);
});

Deno.test("-l / --log above 5 silences warnings; 5 and below print them", async () => {
  await using t = await tempDir();
  mkdirSync(join(t.path, "Agent", "Rb"), { recursive: true });
  writeFileSync(join(t.path, "Agent", "Rb", "start_chat"), "system: from Ruby\n");
  writeFileSync(join(t.path, "Agent", "Rb", "workflow.rb"), "module Rb; end\n");
  const o = { env: { SCOUT_HOME: join(t.path, "home") }, cwd: t.path };
  const run = async (...flags: string[]) => {
    clearAgentCache();
    return await runMain(["agent", "ask", "Rb", "--dry-run", ...flags, "hi"], o);
  };
  const loud = await run();
  assert.equal(loud.code, 0, loud.stderr);
  assert.match(loud.stderr, /warning:.*workflow\.rb/);
  for (const flags of [["-l", "7"], ["--log", "6"]]) {
    const quiet = await run(...flags);
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.equal(quiet.stderr, "");
    assert.equal(quiet.stdout, loud.stdout);
  }
  // a level that is none is a usage error (exit 2), before anything runs
  for (const flags of [["-l", "x"], ["--log", "9"], ["--log", "abc"]]) {
    const bad = await run(...flags);
    assert.equal(bad.code, 2, flags.join(" "));
    assert.match(
      bad.stderr,
      /--log: expected a level 0–7 \(0–5 print warnings, 6 and 7 hide them\), got "(x|9|abc)"/,
    );
    assert.equal(bad.stdout, "");
  }
});

Deno.test("--log's help says what the levels do: 0–5 alike, 6 and 7 hide warnings, errors always print (R110-3)", async () => {
  await using t = await tempDir();
  const o = { env: { SCOUT_HOME: join(t.path, "home") }, cwd: t.path };
  const root = (await runMain(["--help"], o)).stdout.replace(/\s+/g, " ");
  assert.match(
    root,
    /--log <level> log level 0–7 \(Scout's\): 0–5 print warnings, 6 and 7 hide them; errors always print \(default: "5"\)/,
  );
  assert.doesNotMatch(root, /debug\)|silent/);
  // no level prints more than 5 does: there is nothing below a warning to show
  mkdirSync(join(t.path, "Agent", "Rb"), { recursive: true });
  writeFileSync(join(t.path, "Agent", "Rb", "start_chat"), "system: from Ruby\n");
  writeFileSync(join(t.path, "Agent", "Rb", "workflow.rb"), "module Rb; end\n");
  const run = async (level: string) => {
    clearAgentCache();
    return await runMain(["--log", level, "agent", "ask", "Rb", "--dry-run", "hi"], o);
  };
  const five = await run("5");
  assert.match(five.stderr, /warning:.*workflow\.rb/);
  for (const level of ["0", "3"]) assert.deepEqual(await run(level), five);
  // an error is the command's answer, not a log line: 7 prints it too
  for (const level of ["6", "7"]) {
    const r = await runMain(["--log", level, "chat", "parse", "nosuch.chat"], o);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^scout-ai: .*nosuch\.chat/);
  }
});

Deno.test("Ruby's -in and -wt are refused with the flag to use instead (before anything runs)", async () => {
  await using t = await tempDir();
  const o = { env: { SCOUT_HOME: join(t.path, "home") }, cwd: t.path };
  const inline = await runMain(["llm", "ask", "-in", "notes.md"], o);
  assert.equal(inline.code, 2);
  assert.match(inline.stderr, /Unknown flag -in: use --inline FILE/);
  const wt = await runMain(["agent", "ask", "Planner", "-wt", "Baking", "--dry-run", "hi"], o);
  assert.equal(wt.code, 2);
  assert.match(wt.stderr, /Unknown flag -wt: .*use -w WORKFLOW/);
  // after --, it is a word of the question
  const word = await runMain(["llm", "ask", "--dry-run", "--", "what", "-in", "x"], o);
  assert.equal(word.code, 0, word.stderr);
  assert.match(word.stdout, /what -in x/);
});

Deno.test("--no-color / --nocolor hold for commander's own usage errors too (on a terminal)", async () => {
  const bogus = await runMain(["llm", "ask", "--bogus"], { tty: true });
  assert.equal(bogus.code, 2);
  assert.ok(bogus.stderr.includes("\x1b["), bogus.stderr); // coloured on a terminal by default
  for (const flag of ["--no-color", "--nocolor"]) {
    for (const args of [["llm", "ask", "--bogus"], ["llm", "ask", "-O", "x", "q"], ["nosuch"]]) {
      const r = await runMain([flag, ...args], { tty: true });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /^scout-ai: /, `${flag} ${args.join(" ")}`);
    }
  }
});

Deno.test("arguments spelled like Object.prototype members are words, not Ruby flags (R112-5)", async () => {
  await using t = await tempDir();
  const o = { env: { SCOUT_HOME: join(t.path, "home") }, cwd: t.path };
  for (const word of ["toString", "constructor", "__proto__", "valueOf", "hasOwnProperty"]) {
    const r = await runMain(["llm", "ask", "--dry-run", word], o);
    // before: exit 2, `Unknown flag toString: function toString() { [native code] }`
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `user:\n\n${word}\n`);
  }
});
