/**
 * A bad value typed on the command line is a usage error (exit 2, with the
 * usage hint); the same value read from a file — an endpoint file, a chat's
 * option line — is a failure (exit 1) naming the file and line (R94-4,
 * R94-5). `--dry-run` checks the names as the ask does (R110-1).
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runMain, tempDir } from "../support/cli.ts";

const HINT = "(run with --help for usage)\n";
/** `-w` naming no workflow, worded as `workflow task` words it (R137-4). */
const WORKFLOW =
  /^scout-ai: -w: Workflow "nosuchwf" not found \(searched [^\n]*\/workflows\/<Name>\/workflow\.ts[^\n]*\)\n/;

function setup(dir: string) {
  const home = join(dir, "scout");
  mkdirSync(join(home, "etc", "AI"), { recursive: true });
  writeFileSync(join(dir, "session.chat"), "user:\nhi\n");
  const env = { SCOUT_HOME: home, HOME: dir, NO_COLOR: "1" };
  return { home, o: { cwd: dir, env } };
}

Deno.test("chat prompt -s bogus: a usage error (exit 2); a chat's prompt_strategies: exit 1 (R94-4)", async () => {
  await using d = await tempDir();
  const { o } = setup(d.path);
  const r = await runMain(["chat", "prompt", "session.chat", "-s", "bogus"], o);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /^scout-ai: Unknown prompt strategy "bogus" \(known: [^\n]*\)\n/);
  assert.ok(r.stderr.endsWith(HINT), r.stderr);
  writeFileSync(join(d.path, "opt.chat"), "prompt_strategies: bogus\n\nuser:\nhi\n");
  const f = await runMain(["chat", "prompt", "opt.chat"], o);
  assert.equal(f.code, 1, f.stderr);
  assert.ok(!f.stderr.includes(HINT), f.stderr);
});

Deno.test("llm ask -b / -O backend= with an unknown backend: exit 2 (R94-4)", async () => {
  await using d = await tempDir();
  const { o } = setup(d.path);
  for (const flags of [["-b", "nosuch"], ["-O", "backend=nosuch"]]) {
    const r = await runMain(["llm", "ask", ...flags, "hi"], o);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^scout-ai: Unknown backend: "nosuch" \(known: [^\n]*\)\n/);
    assert.ok(r.stderr.endsWith(HINT), r.stderr);
  }
});

Deno.test("an endpoint file's unknown backend: exit 1 naming file:line (R94-4, R94-5)", async () => {
  await using d = await tempDir();
  const { home, o } = setup(d.path);
  const file = join(home, "etc", "AI", "bad2.yaml");
  writeFileSync(file, "model: x\nbackend: nosuch\n");
  const r = await runMain(["llm", "ask", "-e", "bad2", "hi"], o);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /^scout-ai: Unknown backend: "nosuch" \(known: [^\n]*\) \(/);
  assert.ok(r.stderr.endsWith(` (${file}:2)\n`), r.stderr);
  // `provider:` is the same setting; a flag over the file's value is the flag's error
  writeFileSync(file, "provider: nosuch\n");
  const p = await runMain(["llm", "ask", "-e", "bad2", "hi"], o);
  assert.equal(p.code, 1, p.stderr);
  assert.ok(p.stderr.endsWith(` (${file}:1)\n`), p.stderr);
  const b = await runMain(["llm", "ask", "-e", "bad2", "-b", "other", "hi"], o);
  assert.equal(b.code, 2, b.stderr);
  assert.match(b.stderr, /^scout-ai: Unknown backend: "other"/);
});

Deno.test("a chat option's unknown backend: exit 1 naming the chat's line (R94-4)", async () => {
  await using d = await tempDir();
  const { o } = setup(d.path);
  writeFileSync(join(d.path, "b.chat"), "backend: nosuch\n\nuser:\nhi\n");
  const r = await runMain(["llm", "ask", "-c", "b.chat", "again"], o);
  assert.equal(r.code, 1, r.stderr);
  assert.ok(r.stderr.endsWith(" (b.chat:1)\n"), r.stderr);
});

Deno.test("an unknown -e endpoint, -t template, agent or workflow named on the command line: exit 2 (R94-4)", async () => {
  await using d = await tempDir();
  const { o } = setup(d.path);
  const cases: [string[], RegExp][] = [
    [["llm", "ask", "-e", "nosuchep", "hi"], /^scout-ai: Endpoint not found "nosuchep"/],
    [["agent", "ask", "a/../x", "hi"], /^scout-ai: Invalid agent name "a\/\.\.\/x"/],
    [["agent", "ask", "NoSuchAgent", "hi"], /^scout-ai: No agent found with name NoSuchAgent/],
    [["workflow", "task", "NoSuchWf", "t"], /^scout-ai: Workflow "NoSuchWf" not found/],
    [["workflow", "list", "NoSuchWf"], /^scout-ai: Workflow "NoSuchWf" not found/],
    [["workflow", "mcp", "NoSuchWf"], /^scout-ai: Workflow "NoSuchWf" not found/],
    [["agent", "kb", "NoSuchAgent", "list"], /^scout-ai: No agent found with name NoSuchAgent/],
    [["llm", "ask", "-t", "nosuchtpl", "hi"], /^scout-ai: Template "nosuchtpl" not found/],
  ];
  for (const [args, message] of cases) {
    const r = await runMain(args, o);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.ok(r.stderr.endsWith(HINT), r.stderr);
  }
});

Deno.test("--dry-run refuses an unknown -e, -b, -O endpoint=/backend= or -w as the ask does: exit 2, nothing printed (R110-1, R137-4)", async () => {
  await using d = await tempDir();
  const { home, o } = setup(d.path);
  writeFileSync(join(home, "etc", "AI", "known.yaml"), "backend: ollama\n");
  writeFileSync(join(d.path, "inline.txt"), "text\n# ask: hi\n");
  const endpoint = /^scout-ai: Endpoint not found "nosuch" \(searched [^\n]*\)\n/;
  const backend = /^scout-ai: Unknown backend: "nosuch" \(known: [^\n]*\)\n/;
  const cases: [string[], RegExp][] = [
    [["-e", "nosuch"], endpoint],
    [["-O", "endpoint=nosuch"], endpoint],
    [["-b", "nosuch"], backend],
    [["-O", "backend=nosuch"], backend],
    [["-e", "known", "-b", "nosuch"], backend],
    [["-w", "nosuchwf"], WORKFLOW],
  ];
  const commands = [
    ["llm", "ask", "--dry-run", "hi"],
    ["llm", "ask", "--dry-run", "--json", "hi"],
    ["llm", "ask", "--format", "json", "--dry-run", "hi"],
    ["llm", "ask", "--dry-run", "--inline", "inline.txt"],
  ];
  for (const command of commands) {
    for (const [flags, message] of cases) {
      const args = [...command.slice(0, 2), ...flags, ...command.slice(2)];
      const r = await runMain(args, o);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, message, args.join(" "));
      assert.ok(r.stderr.endsWith(HINT), r.stderr);
      assert.equal(r.stdout, "", args.join(" "));
    }
  }
  // the ask itself refuses it too, before asking (R137-4: exit 1, "Workflow not found nosuchwf")
  for (
    const args of [["llm", "ask", "-w", "nosuchwf", "hi"], [
      "llm",
      "ask",
      "-w",
      "nosuchwf whisk",
      "hi",
    ]]
  ) {
    const r = await runMain(args, o);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, WORKFLOW, args.join(" "));
    assert.ok(r.stderr.endsWith(HINT), r.stderr);
  }
  // known names still print the chat, asking nothing
  const ok = await runMain(["llm", "ask", "-e", "known", "-b", "openai", "--dry-run", "hi"], o);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout, "user:\n\nhi\n");
  // -w's task is checked too (R138-2); its inputs and a remote workflow's url are not looked up
  const baking = join(ROOT, "fixtures", "workflows", "Baking");
  const task = await runMain(["llm", "ask", "--dry-run", "-w", `${baking} nosuch`, "hi"], o);
  assert.equal(task.code, 2, task.stderr);
  assert.match(task.stderr, /^scout-ai: -w: Task "nosuch" not found in workflow "Baking"/);
  for (const w of [`${baking} cake eggs=3`, "http://127.0.0.1:9/Baking cake"]) {
    const r = await runMain(["llm", "ask", "--dry-run", "-w", w, "hi"], o);
    assert.equal(r.code, 0, `${w}: ${r.stderr}`);
  }
});

Deno.test("agent ask refuses an unknown -e, -b or -w with exit 2 before anything runs, --dry-run and the task route too (R110-1, R137-4)", async () => {
  await using d = await tempDir();
  const { home, o } = setup(d.path);
  const env = { ...o.env, SCOUT_AGENT_PATH: join(ROOT, "fixtures", "agents") };
  // Librarian: a start chat only; Critic: its workflow.ts has an `ask` task (the task route)
  for (const agent of ["Librarian", "Critic"]) {
    for (const dry of [["--dry-run"], []]) {
      for (
        const [flag, message] of [[
          "-e",
          /^scout-ai: Endpoint not found "nosuch" \(searched [^\n]*\)\n/,
        ], [
          "-b",
          /^scout-ai: Unknown backend: "nosuch" \(known: [^\n]*\)\n/,
        ], ["-w", WORKFLOW]] as const
      ) {
        const value = flag === "-w" ? "nosuchwf" : "nosuch";
        const args = ["agent", "ask", agent, flag, value, ...dry, "hi"];
        const r = await runMain(args, { ...o, env });
        assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
        assert.match(r.stderr, message, args.join(" "));
        assert.ok(r.stderr.endsWith(HINT), r.stderr);
        assert.equal(r.stdout, "");
      }
    }
  }
  assert.equal(existsSync(join(home, "var", "jobs")), false, "a job was started");
});
