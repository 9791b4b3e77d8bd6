import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runMain, runScout, tempDir } from "../support/cli.ts";

const FIX = join(ROOT, "fixtures/compile");
const env = { NO_COLOR: "1", HOME: "/nonexistent-home", SCOUT_HOME: "/nonexistent-scout" };

Deno.test("chat compile: listing of the compiled chat (import, clear inside it, option kept, file)", async () => {
  const r = await runMain(["chat", "compile", "session.chat"], { cwd: FIX, env });
  assert.equal(r.stderr, "");
  assert.equal(r.code, 0);
  assert.equal(
    r.stdout,
    [
      "0  system     You are a careful reviewer. Answer briefly.",
      "1  user       Context: the parser drops empty blocks.",
      "2  assistant  Noted: empty blocks are dropped unless they are clear/skip.",
      "3  option     temperature 0.2",
      "4  user       Please review the notes below.",
      '5  user       <file name="parts/notes.md">',
      "              # Notes",
      "              ",
      "              - `clear:` cuts history",
      "              - imports resolve next to the importing file",
      "              ",
      "              </file>",
      "",
    ].join("\n"),
  );
});

Deno.test("chat compile --json and --chat", async () => {
  const j = await runMain(["chat", "compile", "session.chat", "--json"], { cwd: FIX, env });
  const data = JSON.parse(j.stdout);
  assert.deepEqual(data.map((m: { role: string }) => m.role), [
    "system",
    "user",
    "assistant",
    "option",
    "user",
    "user",
  ]);
  const c = await runMain(["chat", "compile", "session.chat", "--chat"], { cwd: FIX, env });
  assert.ok(c.stdout.startsWith("\nsystem:\n\nYou are a careful reviewer."));
  assert.ok(c.stdout.includes("\noption: temperature 0.2\n"));
});

Deno.test("chat compile from stdin resolves references against the working directory", async () => {
  const r = await runMain(["chat", "compile", "-", "--json"], {
    cwd: FIX,
    env,
    stdin: "user: hi\nfile: parts/notes.md\n",
  });
  assert.equal(r.code, 0);
  const data = JSON.parse(r.stdout);
  assert.equal(data.length, 2);
  assert.ok(data[1].content.startsWith('<file name="parts/notes.md">'));
});

Deno.test("errors: one line naming the reference, the importing file and line; exit 1", async () => {
  const missing = await runMain(["chat", "compile", "missing_import.chat"], { cwd: FIX, env });
  assert.equal(missing.code, 1);
  assert.equal(
    missing.stderr,
    'scout-ai: Import not found: "parts/missing.chat" (missing_import.chat:9)\n',
  );
  const cycle = await runMain(["chat", "compile", "cycle_a.chat"], { cwd: FIX, env });
  assert.equal(cycle.code, 1);
  assert.equal(
    cycle.stderr,
    "scout-ai: Import cycle: cycle_a.chat → cycle_b.chat → cycle_a.chat (cycle_b.chat:3)\n",
  );
  const role = await runMain(["chat", "compile", "unknown_role.chat"], { cwd: FIX, env });
  assert.equal(role.code, 1);
  assert.match(role.stderr, /^scout-ai: Unknown role "todo": .* \(unknown_role\.chat:4\)\n$/);
  const ok = await runMain(["chat", "compile", "unknown_role.chat", "--allow-role", "todo"], {
    cwd: FIX,
    env,
  });
  assert.equal(ok.code, 0);
  const task = await runMain(["chat", "compile", "-"], { cwd: FIX, env, stdin: "\ntask: Wf t\n" });
  assert.equal(task.code, 1);
  // The CLI passes the workflow engine's resolver: the role reaches it and the
  // unknown workflow is reported with the chat line that named it.
  assert.match(task.stderr, /^scout-ai: Workflow "Wf" not found.*\(<stdin>:2\)\n$/);
});

Deno.test("chat compile applies config: lines to a store loaded from SCOUT_HOME (not persisted)", async () => {
  await using t = await tempDir();
  await Deno.mkdir(join(t.path, "etc"), { recursive: true });
  await Deno.writeTextFile(join(t.path, "etc/config"), "allow_roles todo chat\n");
  const r = await runMain(["chat", "compile", "unknown_role.chat", "--json"], {
    cwd: FIX,
    env: { ...env, SCOUT_HOME: t.path },
  });
  assert.equal(r.code, 0);
  assert.deepEqual(JSON.parse(r.stdout).map((m: { role: string }) => m.role), ["user", "todo"]);
});

Deno.test("chat prompt: compiled chat, then the prompt; summary on stderr", async () => {
  const r = await runMain(["chat", "prompt", "agent_run.chat"], { cwd: FIX, env });
  assert.equal(r.code, 0);
  const [compiled, prompt] = r.stdout.split(/── prompt: shorten_tools_epoch \(\d+ messages\) ──\n/);
  assert.ok(compiled!.startsWith("── compiled chat (129 messages) ──\n"));
  assert.ok(prompt!.includes("=== Context Management ==="));
  assert.equal(
    r.stderr,
    "prompt (shorten_tools_epoch): 129 → 130 messages (102 kept, 27 truncated, 0 dropped, 1 added); 60,486 → 47,553 characters\n",
  );
});

Deno.test("chat prompt --json: documented shape; --strategy and env settings per call", async () => {
  const r = await runMain(["chat", "prompt", "agent_run.chat", "--json", "-q"], { cwd: FIX, env });
  assert.equal(r.stderr, "");
  const data = JSON.parse(r.stdout);
  assert.deepEqual(Object.keys(data), [
    "version",
    "strategies",
    "options",
    "compiled",
    "prompt",
    "summary",
  ]);
  assert.equal(data.version, 1);
  assert.deepEqual(data.strategies, ["shorten_tools_epoch"]);
  assert.equal(data.compiled.length, 129);
  assert.equal(data.summary.truncated, 27);

  const none = await runMain(["chat", "prompt", "agent_run.chat", "--json", "-s", "none"], {
    cwd: FIX,
    env,
  });
  const n = JSON.parse(none.stdout);
  assert.deepEqual(n.prompt, n.compiled);
  assert.match(none.stderr, /^prompt \(none\): 129 → 129 messages \(129 kept/);

  const small = await runMain(["chat", "prompt", "agent_run.chat", "--json", "-q"], {
    cwd: FIX,
    env: { ...env, EPOCH_TOOL_CALL_THRESHOLD: "10", EPOCH_COMPACTED_TOOL_CALLS: "5" },
  });
  const s = JSON.parse(small.stdout).summary;
  assert.ok(s.dropped > 0, JSON.stringify(s));
  assert.ok(s.charsAfter < JSON.parse(r.stdout).summary.charsAfter);
});

Deno.test("chat prompt: chat options select strategy and settings; unknown -s strategy → exit 2 (R94-4)", async () => {
  // sticky: plain option: lines are reset by the assistant messages of the imported run
  const text =
    "sticky_option: prompt_strategies shorten_tools\nsticky_option: max_tool_chars 10\n" +
    "sticky_option: full_tool_outputs 1\nimport: agent_run.chat\n";
  const r = await runMain(["chat", "prompt", "-", "--json"], { cwd: FIX, env, stdin: text });
  assert.equal(r.code, 0, r.stderr);
  const data = JSON.parse(r.stdout);
  assert.deepEqual(data.strategies, ["shorten_tools"]);
  assert.equal(data.options.max_tool_chars, "10");
  assert.ok(data.summary.dropped > 0);
  assert.ok(!data.prompt.some((m: { role: string }) => m.role.endsWith("option")));
  const reset = await runMain(["chat", "prompt", "-", "--json", "-q"], {
    cwd: FIX,
    env,
    stdin: text.replaceAll("sticky_option", "option"),
  });
  assert.deepEqual(JSON.parse(reset.stdout).strategies, ["shorten_tools_epoch"]);
  const bad = await runMain(["chat", "prompt", "agent_run.chat", "-s", "shorten_tool"], {
    cwd: FIX,
    env,
  });
  assert.equal(bad.code, 2);
  assert.equal(
    bad.stderr,
    'scout-ai: Unknown prompt strategy "shorten_tool" (known: none, shorten_tools, shorten_tools_epoch)\n' +
      "(run with --help for usage)\n",
  );
  const badEnv = await runMain(["chat", "prompt", "agent_run.chat"], {
    cwd: FIX,
    env: { ...env, EPOCH_SIZE: "ten" },
  });
  assert.equal(badEnv.code, 1);
  assert.match(badEnv.stderr, /EPOCH_SIZE.*"ten" is not an integer/);
});

Deno.test("chat prompt drops meta, tool declarations and response ids from the prompt", async () => {
  const text =
    "meta: pt=3 job=x\ntool: Baking bake\nmcp: stdio srv\nkb: Genes\nintroduce: Baking\n" +
    "association: g g.tsv\nclear_associations: x\nsocialize: true\n" +
    "user: q\nprevious_response_id: r1\nassistant: a\n";
  const r = await runMain(["chat", "prompt", "-", "--json", "-q"], { cwd: FIX, env, stdin: text });
  const data = JSON.parse(r.stdout);
  assert.deepEqual(data.prompt.map((m: { role: string }) => m.role), ["user", "assistant"]);
  assert.equal(data.options.previous_response_id, "r1");
});

Deno.test("help teaches with examples", async () => {
  for (const cmd of ["compile", "prompt"]) {
    const r = await runMain(["chat", cmd, "--help"], { env });
    assert.equal(r.code, 0);
    assert.match(r.stdout, /Examples[^\n]*:\n {2}scout-ai chat /);
  }
});

Deno.test("subprocess: compile from source writes the same bytes as in-process", async () => {
  const sub = await runScout(["chat", "compile", "session.chat", "--json"], { cwd: FIX, env });
  const inproc = await runMain(["chat", "compile", "session.chat", "--json"], { cwd: FIX, env });
  assert.equal(sub.code, 0, sub.stderr);
  assert.equal(sub.stdout, inproc.stdout);
});

Deno.test("chat prompt: format: names a schema file next to the chat (D18), parsed into the options", async () => {
  await using t = await tempDir();
  await Deno.mkdir(join(t.path, "c"));
  await Deno.writeTextFile(join(t.path, "c/schema.json"), '{"type":"object"}');
  await Deno.writeTextFile(join(t.path, "c/s.chat"), "format: schema.json\nuser: q\n");
  const r = await runMain(["chat", "prompt", "c/s.chat", "--json", "-q"], { cwd: t.path, env });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).options.format, { type: "object" });
});

Deno.test("chat compile: a 200,000-message import is spliced without stack overflow", async () => {
  await using t = await tempDir();
  const lines: string[] = [];
  for (let i = 0; i < 200_000; i++) lines.push(`user: m${i}`);
  await Deno.writeTextFile(join(t.path, "big.chat"), lines.join("\n"));
  const r = await runMain(["chat", "compile", "-", "--json"], {
    cwd: t.path,
    env,
    stdin: "import: big.chat\nuser: end\n",
  });
  assert.equal(r.code, 0, r.stderr);
  const data = JSON.parse(r.stdout);
  assert.equal(data.length, 200_001);
  assert.equal(data.at(-1).content, "end");
});
