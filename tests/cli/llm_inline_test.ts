/**
 * `llm ask --inline FILE` / `agent ask NAME --inline FILE` (agents.md §5.3,
 * §7.15): `# ask:` comment blocks answered in place, each with the WHOLE file
 * attached; answered blocks are not asked again.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { findAskBlocks, INLINE_SYSTEM, withReplies } from "../../src/cli/llm_inline.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

const SOURCE = `def area(r)
  # ask: which constant
  #  should I use for pi?

  3.14 * r * r
end

# ask: is this Ruby?
`;

Deno.test("findAskBlocks: comment and blank lines after # ask: belong to the block (Ruby's rule)", () => {
  const blocks = findAskBlocks(SOURCE);
  assert.deepEqual(
    blocks.map((b) => [b.line, b.question, b.answered]),
    [[2, "which constant should I use for pi?", false], [8, "is this Ruby?", false]],
  );
  // the reply goes after the blank line that ends the first block
  assert.equal(SOURCE.slice(0, blocks[0]!.end).endsWith("for pi?\n\n"), true);
  assert.equal(blocks[1]!.end, SOURCE.length);
});

Deno.test("findAskBlocks: a block followed by a Response start/end pair is answered; no ask → none", () => {
  const done = withReplies(SOURCE, new Map([[findAskBlocks(SOURCE)[0]!.end, "Math::PI"]]));
  assert.deepEqual(findAskBlocks(done).map((b) => b.answered), [true, false]);
  assert.deepEqual(findAskBlocks("x = 1\n# a comment\n"), []);
  // an unterminated reply start is not a reply: the block is asked
  assert.deepEqual(findAskBlocks("# ask: q\n# Response start\nhalf\n").map((b) => b.answered), [
    false,
  ]);
  // a last line without a newline still gets its reply on a line of its own
  const noEol = "# ask: q";
  assert.equal(
    withReplies(noEol, new Map([[findAskBlocks(noEol)[0]!.end, "A"]])),
    "# ask: q\n# Response start\nA\n# Response end\n",
  );
});

async function setup() {
  const dir = await tempDir();
  const srv = await startProviderServer();
  const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "sk-x" };
  const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "test-model"];
  await Deno.writeTextFile(join(dir.path, "area.rb"), SOURCE);
  return { dir, srv, env, flags };
}

function userTexts(body: Record<string, unknown>): string[] {
  const msgs = body.messages as { role: string; content: string }[];
  return msgs.filter((m) => m.role === "user").map((m) => m.content);
}

Deno.test("llm ask --inline: each question sees the whole file; replies written in place; a rerun asks nothing", async () => {
  const { dir, srv, env, flags } = await setup();
  await using _d = dir;
  await using _s = srv;
  srv.script({ text: "Math::PI" }, { text: "Yes." });
  const r = await runMain(["llm", "ask", ...flags, "--inline", "area.rb"], {
    env,
    cwd: dir.path,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    await Deno.readTextFile(join(dir.path, "area.rb")),
    `def area(r)
  # ask: which constant
  #  should I use for pi?

# Response start
Math::PI
# Response end
  3.14 * r * r
end

# ask: is this Ruby?
# Response start
Yes.
# Response end
`,
  );
  assert.equal(srv.requests.length, 2);
  const [first, second] = srv.requests.map((q) => q.body);
  assert.equal((first!.messages as { content: string }[])[0]!.content, INLINE_SYSTEM);
  assert.equal(
    userTexts(first!)[0],
    "Find the following question as a comment in the file give a response to be placed inline: " +
      "  # ask: which constant\n  #  should I use for pi?\n\n",
  );
  // [TS-FIX] §7.15: the second question gets the whole file, also what is
  // before the first question (Ruby sent only the rest after it)
  const attached = userTexts(second!)[1]!;
  assert.ok(attached.startsWith('<file name="area.rb">\ndef area(r)\n'), attached);
  assert.ok(attached.includes("# ask: is this Ruby?"));
  // [DIVERGE] a second run finds every block answered and asks nothing
  const again = await runMain(["llm", "ask", ...flags, "--inline", "area.rb", "--json"], {
    env,
    cwd: dir.path,
  });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(srv.requests.length, 2);
  assert.deepEqual(JSON.parse(again.stdout).skipped, 2);
});

Deno.test("llm ask --inline: a failure keeps the replies obtained before it; bad combinations are usage errors", async () => {
  const { dir, srv, env, flags } = await setup();
  await using _d = dir;
  await using _s = srv;
  srv.script({ text: "Math::PI" }, { status: 400, message: "bad model" });
  const r = await runMain(["llm", "ask", ...flags, "--inline", "area.rb"], {
    env,
    cwd: dir.path,
  });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /bad model/);
  const text = await Deno.readTextFile(join(dir.path, "area.rb"));
  assert.deepEqual(findAskBlocks(text).map((b) => b.answered), [true, false]);
  const usage = await runMain(["llm", "ask", "--inline", "area.rb", "-o", "x.chat"], {
    env,
    cwd: dir.path,
  });
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /--inline rewrites its FILE/);
  const missing = await runMain(["llm", "ask", "--inline", "nope.rb"], { env, cwd: dir.path });
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /File not found: "nope\.rb"/);
  await Deno.mkdir(join(dir.path, "lib.rb"));
  const isDir = await runMain(["llm", "ask", "--inline", "lib.rb"], { env, cwd: dir.path });
  assert.equal(isDir.code, 1);
  assert.match(isDir.stderr, /^scout-ai: Is a directory, not a file: "lib\.rb"/);
});

Deno.test("agent ask --inline: the agent's start chat comes before each inline question", async () => {
  const { dir, srv, env, flags } = await setup();
  await using _d = dir;
  await using _s = srv;
  const agentDir = join(dir.path, "Agent", "Reviewer");
  await Deno.mkdir(agentDir, { recursive: true });
  await Deno.writeTextFile(join(agentDir, "start_chat"), "system: You review Ruby code.\n");
  srv.script({ text: "Math::PI" }, { text: "Yes." });
  const r = await runMain(["agent", "ask", "Reviewer", ...flags, "--inline", "area.rb"], {
    env,
    cwd: dir.path,
  });
  assert.equal(r.code, 0, r.stderr);
  const sys = (srv.requests[0]!.body.messages as { role: string; content: string }[])
    .filter((m) => m.role === "system").map((m) => m.content);
  assert.deepEqual(sys, ["You review Ruby code.", INLINE_SYSTEM]);
  assert.deepEqual(
    findAskBlocks(await Deno.readTextFile(join(dir.path, "area.rb"))).map((b) => b.answered),
    [true, true],
  );
  // -c with --inline is a usage error whether or not its file exists (nothing asked, nothing written)
  const before = await Deno.readTextFile(join(dir.path, "area.rb"));
  const asked = srv.requests.length;
  const usage = await runMain(
    ["agent", "ask", "Reviewer", ...flags, "--inline", "area.rb", "-c", "missing.chat"],
    { env, cwd: dir.path },
  );
  assert.equal(usage.code, 2, usage.stderr);
  assert.match(usage.stderr, /--inline rewrites its FILE: it takes no -c, -o or QUESTION/);
  assert.equal(srv.requests.length, asked);
  assert.equal(await Deno.readTextFile(join(dir.path, "area.rb")), before);
});

Deno.test("llm ask / agent ask --inline --dry-run --json: one document, the chats in it (R137-2)", async () => {
  await using dir = await tempDir();
  const env = { SCOUT_HOME: join(dir.path, "home") };
  const o = { env, cwd: dir.path };
  const first = findAskBlocks(SOURCE)[0]!;
  await Deno.writeTextFile(
    join(dir.path, "area.rb"),
    withReplies(SOURCE, new Map([[first.end, "PI"]])),
  );
  const agentDir = join(dir.path, "Agent", "Reviewer");
  await Deno.mkdir(agentDir, { recursive: true });
  await Deno.writeTextFile(join(agentDir, "start_chat"), "system: You review Ruby code.\n");
  const runs: [string[], string[]][] = [
    [["llm", "ask"], [INLINE_SYSTEM]],
    [["agent", "ask", "Reviewer"], ["You review Ruby code.", INLINE_SYSTEM]],
  ];
  for (const [cmd, systems] of runs) {
    const r = await runMain([...cmd, "--inline", "area.rb", "--dry-run", "--json"], o);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout); // before: "# line 11\nsystem:…" and then the document
    assert.deepEqual(
      [doc.version, doc.file, doc.dry_run, doc.answered, doc.skipped, doc.unplaced],
      [1, "area.rb", true, [], 1, []],
    );
    assert.deepEqual(doc.questions.map((q: { line: number }) => q.line), [11]);
    assert.equal(doc.questions[0].question, "is this Ruby?");
    const messages = doc.questions[0].messages as { role: string; content: string }[];
    assert.deepEqual(messages.filter((m) => m.role === "system").map((m) => m.content), systems);
    assert.match(messages.at(-1)!.content, /<file name="area.rb">/);
  }
  // without --json: the chat text, as before
  const text = await runMain(["llm", "ask", "--inline", "area.rb", "--dry-run"], o);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^# line 11\nsystem:\n\nWrite a succint reply/);
});

Deno.test("llm ask --inline through a symbolic link: the target is rewritten (mode, byte-order mark and CRLF kept); a file not UTF-8 or read-only is refused before asking (R74-2)", async () => {
  const { dir, srv, env, flags } = await setup();
  await using _d = dir;
  await using _s = srv;
  const at = (name: string) => join(dir.path, name);
  const bytes = (...parts: (string | number[])[]) =>
    Uint8Array.from(
      parts.flatMap((p) => typeof p === "string" ? [...new TextEncoder().encode(p)] : p),
    );
  const bom = [0xef, 0xbb, 0xbf];
  Deno.writeFileSync(at("real.py"), bytes(bom, "# café\r\n# ask: what?\r\nx = 1\r\n"));
  Deno.chmodSync(at("real.py"), 0o750);
  Deno.symlinkSync("real.py", at("link.py"));
  srv.script({ text: "one\ntwo" });
  const r = await runMain(["llm", "ask", ...flags, "--inline", "link.py"], { env, cwd: dir.path });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(Deno.lstatSync(at("link.py")).isSymlink, true, "the link stays");
  assert.equal(Deno.statSync(at("real.py")).mode! & 0o777, 0o750, "the mode is kept");
  assert.deepEqual(
    Deno.readFileSync(at("real.py")),
    bytes(
      bom,
      "# café\r\n# ask: what?\r\n# Response start\r\none\r\ntwo\r\n# Response end\r\nx = 1\r\n",
    ),
  );
  // not UTF-8, or read-only: one line naming the file, exit 1, nothing asked, nothing changed
  const latin1 = bytes(bom, "# caf", [0xe9], "\r\n# ask: what?\r\nx = 1\r\n");
  Deno.writeFileSync(at("l1.py"), latin1);
  Deno.writeTextFileSync(at("ro.py"), "# ask: what?\n", { mode: 0o444 });
  Deno.chmodSync(at("ro.py"), 0o444); // read-only, also to root
  const asked = srv.requests.length;
  for (
    const [file, why] of [
      ["l1.py", /^scout-ai: "l1\.py" is not valid UTF-8: --inline would change its bytes/],
      ["ro.py", /^scout-ai: Cannot write "ro\.py": the file is not writable/],
    ] as const
  ) {
    const bad = await runMain(["llm", "ask", ...flags, "--inline", file], { env, cwd: dir.path });
    assert.equal(bad.code, 1, bad.stderr);
    assert.match(bad.stderr, why);
    assert.equal(bad.stderr.trimEnd().split("\n").length, 1, bad.stderr);
  }
  assert.equal(srv.requests.length, asked);
  assert.deepEqual(Deno.readFileSync(at("l1.py")), latin1);
  assert.equal(Deno.readTextFileSync(at("ro.py")), "# ask: what?\n");
});

Deno.test("withReplies: a CRLF file gets CRLF reply lines", () => {
  const text = "# ask: q\r\nx\r\n";
  assert.equal(
    withReplies(text, new Map([[findAskBlocks(text)[0]!.end, "a\nb\r\nc\n"]]), "\r\n"),
    "# ask: q\r\n# Response start\r\na\r\nb\r\nc\r\n# Response end\r\nx\r\n",
  );
});
