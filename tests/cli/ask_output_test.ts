/**
 * The `-o FILE` chat of `llm ask` / `agent ask` (`src/cli/chat_output.ts`):
 * a path that cannot be written fails before anything is asked; an answer
 * that cannot be saved after all is still printed; concurrent runs
 * appending to one chat all land; `agent ask` with nothing to ask asks
 * nothing.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Buffer } from "node:buffer";
import { parse } from "../../src/chat/parse.ts";
import { clearAgentCache } from "../../src/agent/load.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { readToEndOrKill } from "../support/fifo.ts";
import { startProviderServer } from "../support/provider_server.ts";

async function setup(fallback = () => ({ text: "the answer" })) {
  const dir = await tempDir();
  const srv = await startProviderServer({ fallback });
  const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "sk-x" };
  const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--no-cache"];
  return {
    dir,
    srv,
    run: (args: string[]) => runMain([...args, ...flags], { env, cwd: dir.path }),
    [Symbol.asyncDispose]: async () => {
      await srv.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

Deno.test("-o that cannot be written fails with exit 2 before asking; missing parents are fine", async () => {
  await using t = await setup();
  mkdirSync(join(t.dir.path, "adir"));
  writeFileSync(join(t.dir.path, "afile"), "x");
  for (
    const [out, why] of [["adir", /it is a directory/], [
      "afile/x.chat",
      /not a writable directory/,
    ]]
  ) {
    const r = await t.run(["llm", "ask", "-o", out as string, "q"]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`Cannot write -o "${out}"`));
    assert.match(r.stderr, why as RegExp);
  }
  assert.equal(t.srv.requests.length, 0, "nothing asked");
  const ok = await t.run(["llm", "ask", "-o", "new/sub/x.chat", "q"]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(readFileSync(join(t.dir.path, "new/sub/x.chat"), "utf8"), /the answer/);
});

Deno.test("an answer that cannot be saved after all is printed, then the run fails", async () => {
  let out = "";
  await using t = await setup(() => {
    mkdirSync(out); // the -o path becomes a directory while the model answers
    return { text: "kept answer" };
  });
  out = join(t.dir.path, "late.chat");
  const r = await t.run(["llm", "ask", "-o", "late.chat", "q"]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "kept answer\n");
  assert.match(r.stderr, /late\.chat/);
});

Deno.test("concurrent runs appending to one -o chat all land", async () => {
  await using t = await setup();
  const runs = await Promise.all(
    Array.from({ length: 6 }, (_, i) => t.run(["llm", "ask", "-o", "shared.chat", `q${i}`])),
  );
  for (const r of runs) assert.equal(r.code, 0, r.stderr);
  const saved = parse(readFileSync(join(t.dir.path, "shared.chat"), "utf8"));
  const users = saved.filter((m) => m.role === "user" && m.content !== "").map((m) => m.content);
  assert.deepEqual(users.sort(), ["q0", "q1", "q2", "q3", "q4", "q5"]);
  assert.equal(saved.filter((m) => m.role === "assistant").length, 6);
});

Deno.test("agent ask with nothing to ask exits 2 and asks nothing (the start chat is not a question)", async () => {
  await using t = await setup();
  mkdirSync(join(t.dir.path, "Agent", "Quiet"), { recursive: true });
  writeFileSync(join(t.dir.path, "Agent", "Quiet", "start_chat"), "system: You are quiet\n");
  clearAgentCache();
  const r = await t.run(["agent", "ask", "Quiet"]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /Nothing to ask/);
  assert.equal(t.srv.requests.length, 0);
});

Deno.test("-o through a symbolic link: the target is the chat (the link stays, its mode kept); runs through two links to one chat all land", async () => {
  await using t = await setup();
  mkdirSync(join(t.dir.path, "repo"));
  const target = join(t.dir.path, "repo", "t.chat");
  writeFileSync(target, "user:\n\nearlier\n");
  Deno.chmodSync(target, 0o600);
  Deno.symlinkSync(join("repo", "t.chat"), join(t.dir.path, "a.chat")); // relative, as ln -s
  Deno.symlinkSync(target, join(t.dir.path, "b.chat"));
  const runs = await Promise.all(
    Array.from(
      { length: 6 },
      (_, i) => t.run(["llm", "ask", "-o", i % 2 ? "a.chat" : "b.chat", `q${i}`]),
    ),
  );
  for (const r of runs) assert.equal(r.code, 0, r.stderr);
  for (const l of ["a.chat", "b.chat"]) assert(Deno.lstatSync(join(t.dir.path, l)).isSymlink, l);
  const users = parse(readFileSync(target, "utf8")).filter((m) => m.role === "user").map((m) =>
    m.content
  );
  assert.deepEqual(users.filter((c) => c !== "").sort(), [
    "earlier",
    "q0",
    "q1",
    "q2",
    "q3",
    "q4",
    "q5",
  ]);
  assert.equal(Deno.statSync(target).mode! & 0o777, 0o600, "a private chat stays private");
});

Deno.test("-o: a link to nothing, a loop of links, a socket (exit 2) or a read-only file (exit 1, R92-5) fail before asking", async () => {
  await using t = await setup();
  Deno.symlinkSync("missing/none.chat", join(t.dir.path, "dangling.chat"));
  Deno.symlinkSync("loop2.chat", join(t.dir.path, "loop1.chat"));
  Deno.symlinkSync("loop1.chat", join(t.dir.path, "loop2.chat"));
  using _socket = Deno.listen({ transport: "unix", path: join(t.dir.path, "socket.chat") });
  writeFileSync(join(t.dir.path, "ro.chat"), "user:\n\nkept\n", { mode: 0o444 });
  for (
    const [out, why] of [
      ["dangling.chat", /a symbolic link to a file that does not exist/],
      ["loop1.chat", /a loop of symbolic links/],
      ["socket.chat", /not a regular file, a pipe or a terminal/],
      ["ro.chat", /the file is not writable/], // read-only: refused also to root
    ] as const
  ) {
    const r = await t.run(["llm", "ask", "-o", out, "q"]);
    // a permission is a failure, not a usage error (README keeps 2 for usage)
    assert.equal(r.code, out === "ro.chat" ? 1 : 2, r.stderr);
    assert.match(r.stderr, new RegExp(`Cannot write -o "${out}": `));
    assert.match(r.stderr, why);
  }
  assert(Deno.lstatSync(join(t.dir.path, "dangling.chat")).isSymlink);
  assert.equal(t.srv.requests.length, 0);
});

Deno.test("R81-2: -o to a FIFO (or a link to one) writes the new messages to it, reads nothing, replaces nothing", async () => {
  await using t = await setup();
  const fifo = join(t.dir.path, "pipe.chat");
  assert(new Deno.Command("mkfifo", { args: [fifo] }).outputSync().success, "mkfifo");
  Deno.symlinkSync("pipe.chat", join(t.dir.path, "link.chat"));
  for (const out of ["pipe.chat", "link.chat"]) {
    const cat = new Deno.Command("cat", { args: [fifo], stdout: "piped" }).spawn();
    const r = await t.run(["llm", "ask", "-o", out, "q"]);
    const read = await readToEndOrKill(cat);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "the answer\n");
    assert.deepEqual(
      parse(read).filter((m) => m.role !== "meta" && m.content !== "").map((m) => [
        m.role,
        m.content,
      ]),
      [["user", "q"], ["assistant", "the answer"]],
    );
  }
  assert(Deno.lstatSync(fifo).isFifo, "still a FIFO");
  assert(Deno.lstatSync(join(t.dir.path, "link.chat")).isSymlink, "the link stays");
});

Deno.test("R72-6: -o - is a usage error (the answer already goes to stdout), not a file named '-'", async () => {
  await using t = await setup();
  mkdirSync(join(t.dir.path, "Agent", "Quiet"), { recursive: true });
  writeFileSync(join(t.dir.path, "Agent", "Quiet", "start_chat"), "system: You are quiet\n");
  clearAgentCache();
  const cases = [
    ["llm", "ask", "-o", "-", "hi"],
    ["llm", "ask", "--output=-", "hi"],
    ["llm", "ask", "--format", "json", "-o", "-", "hi"],
    ["agent", "ask", "Quiet", "-o", "-", "hi"],
  ];
  for (const args of cases) {
    const r = await t.run(args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, /^scout-ai: Cannot write -o "-": the answer already goes to stdout;/);
    assert.equal(existsSync(join(t.dir.path, "-")), false, args.join(" "));
  }
  assert.equal(t.srv.requests.length, 0, "nothing asked");
  // a file named "-" is still a path away
  const named = await t.run(["llm", "ask", "-o", "./-", "hi"]);
  assert.equal(named.code, 0, named.stderr);
  assert.equal(named.stdout, "the answer\n");
  assert.match(readFileSync(join(t.dir.path, "-"), "utf8"), /the answer/);
});

Deno.test("-o keeps the chat's old bytes (not UTF-8, a byte-order mark) as they were; -c on such a chat warns once (R74-1)", async () => {
  await using t = await setup();
  const file = join(t.dir.path, "l1.chat");
  const old = Uint8Array.from([
    ...[0xef, 0xbb, 0xbf],
    ...new TextEncoder().encode("user:\n\nlatin1 caf"),
    0xe9,
    ...new TextEncoder().encode(" bytes\n"),
  ]);
  writeFileSync(file, old);
  const r = await t.run(["llm", "ask", "-o", "l1.chat", "next"]);
  assert.equal(r.code, 0, r.stderr);
  const now = readFileSync(file);
  assert.deepEqual(now.subarray(0, old.length), Buffer.from(old), "the old part byte for byte");
  assert.match(now.subarray(old.length).toString("utf8"), /^\nuser:\n\nnext\n/);
  const c = await t.run(["llm", "ask", "-c", "l1.chat", "again"]);
  assert.equal(c.code, 0, c.stderr);
  assert.equal(c.stderr.match(/l1\.chat: invalid UTF-8 replaced by U\+FFFD/g)?.length, 1, c.stderr);
  const o = await t.run(["llm", "ask", "-c", "l1.chat", "-o", "l1.chat", "again"]);
  assert.equal(o.stderr.match(/invalid UTF-8/g)?.length, 1, o.stderr);
  assert.deepEqual(readFileSync(file).subarray(0, old.length), Buffer.from(old));
});

Deno.test("-o with a name of 250 bytes saves the chat (the temp file's name is cut, not too long) (R74-3)", async () => {
  await using t = await setup();
  const name = "c".repeat(245) + ".chat";
  const r = await t.run(["llm", "ask", "-o", name, "q"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(readFileSync(join(t.dir.path, name), "utf8"), /the answer/);
});

Deno.test("-o with a home that refuses its lock directory: locked next to the chat, saved, told once (R74-4)", async () => {
  await using t = await setup();
  // $SCOUT_HOME/tmp is a file: tmp/persist_locks cannot be made (ENOTDIR, even as root)
  mkdirSync(join(t.dir.path, "home"), { recursive: true });
  writeFileSync(join(t.dir.path, "home", "tmp"), "not a directory\n");
  mkdirSync(join(t.dir.path, "chats"));
  const r = await t.run(["llm", "ask", "-o", "chats/p.chat", "q1"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "the answer\n");
  assert.match(
    r.stderr,
    /Cannot lock in "[^"]*home\/tmp\/persist_locks" \(a part of the path is not a directory\): locking next to the chat\n/,
  );
  const saved = parse(readFileSync(join(t.dir.path, "chats", "p.chat"), "utf8"));
  assert.deepEqual(saved.filter((m) => m.role !== "meta").map((m) => m.content).filter(Boolean), [
    "q1",
    "the answer",
  ]);
  // the lock next to the chat is gone once the chat is saved
  assert.deepEqual(Deno.readDirSync(join(t.dir.path, "chats")).toArray().map((e) => e.name), [
    "p.chat",
  ]);
});

Deno.test("-o onto a chat ending inside an open fence keeps every message, and says the file was printed again whole", async () => {
  await using t = await setup();
  const file = join(t.dir.path, "open.chat");
  writeFileSync(file, "user:\n\nhere is code\n\n```\nuser: inside the fence\n");
  const before = parse(readFileSync(file, "utf8"));
  const r = await t.run(["llm", "ask", "-c", "open.chat", "-o", "open.chat", "Q"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stderr,
    'scout-ai: warning: "open.chat" ends inside an open block (a fence, [[, {{{ or a tag): the new ' +
      "messages could not simply follow it, so the whole chat was printed again (every message " +
      "kept)\n",
  );
  const after = parse(readFileSync(file, "utf8"));
  assert.deepEqual(after.slice(0, before.length), before);
  assert.deepEqual(after.slice(-1), [{ role: "assistant", content: "the answer" }]);
  // a file that can simply be appended to is, without a word
  writeFileSync(file, "user:\n\nhere is code\n\n```\nx\n```\n");
  const plain = await t.run(["llm", "ask", "-c", "open.chat", "-o", "open.chat", "Q"]);
  assert.equal(plain.stderr, "");
  assert.ok(readFileSync(file, "utf8").startsWith("user:\n\nhere is code\n\n```\nx\n```\n\nuser:"));
});
