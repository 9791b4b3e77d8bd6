/**
 * A chat in UTF-16 or UTF-32 (by its byte-order mark: Windows PowerShell 5's
 * `>`, Notepad's "Unicode") is refused, naming it, wherever a chat is read —
 * `-c`, `-o`, `-c -`, `-i`, `-i -`, `import:`, an agent's `start_chat`, a
 * `-t` template, `chat parse`/`compile`/`prompt`, `llm prov` — before anything
 * is asked or written; a `file:` of such a text is data and keeps its warning
 * ([TS-FIX] `chat.md` §7, R133-1).
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { clearAgentCache } from "../../src/agent/load.ts";
import { appendToChat, appendToChatSync } from "../../src/cli/chat_output.ts";
import { isScoutError } from "../../src/errors.ts";
import { runMain, runScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { put } from "../support/files.ts";

const CHAT = "system:\r\n\r\nBe terse.\r\n\r\nuser:\r\n\r\nhello\r\n";

/** `CHAT` as PowerShell 5's `>` writes it: UTF-16LE after `FF FE`. */
function utf16le(text: string): Uint8Array {
  const out = new Uint8Array(2 + 2 * text.length);
  out.set([0xff, 0xfe]);
  for (let i = 0; i < text.length; i++) {
    out[2 + 2 * i] = text.charCodeAt(i) & 0xff;
    out[3 + 2 * i] = text.charCodeAt(i) >> 8;
  }
  return out;
}

/** `CHAT` in UTF-16BE or UTF-32LE/BE, each after its mark. */
function wide(text: string, form: "16be" | "32le" | "32be"): Uint8Array {
  const width = form === "16be" ? 2 : 4;
  const out = new Uint8Array(width * (text.length + 1));
  const put = (at: number, c: number) => {
    for (let k = 0; k < width; k++) {
      const shift = 8 * (form === "32le" ? k : width - 1 - k);
      out[at * width + k] = (c >> shift) & 0xff;
    }
  };
  put(0, 0xfeff);
  for (let i = 0; i < text.length; i++) put(i + 1, text.charCodeAt(i));
  return out;
}

const U16 = utf16le(CHAT);

/** The refusal for `name` in `encoding` with `mark`, as the CLI prints it. */
function refused(name: string, encoding = "UTF-16", mark = "FF FE", noun = "Chat"): RegExp {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(
    `^scout-ai: ${noun} "${esc(name)}" is ${encoding} text \\(byte-order mark ${mark}\\); ` +
      `scout-ai reads chats as UTF-8: save it as UTF-8 \\(iconv -f ${encoding} -t UTF-8\\)`,
  );
}

async function setup() {
  const dir = await tempDir();
  const srv = await startProviderServer({ fallback: () => ({ text: "the answer" }) });
  const env = { SCOUT_HOME: join(dir.path, "home"), HOME: dir.path, OPENAI_API_KEY: "sk-x" };
  const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--no-cache"];
  put(dir.path, "u16.chat", U16);
  return {
    dir,
    srv,
    env,
    run: (args: string[]) => runMain([...args, ...flags], { env, cwd: dir.path }),
    /** A real process: stdin as bytes. */
    scout: (args: string[], stdin: Uint8Array) =>
      runScout([...args, ...flags], { env, cwd: dir.path, stdin }),
    bytes: (rel: string) => new Uint8Array(readFileSync(join(dir.path, rel))),
    [Symbol.asyncDispose]: async () => {
      await srv.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

Deno.test("llm ask -c/-o on a UTF-16 chat: refused before any request, the file byte-identical (R133-1)", async () => {
  await using t = await setup();
  for (
    const args of [
      ["-c", "u16.chat", "-o", "u16.chat", "Q"],
      ["-o", "u16.chat", "Q"], // the UTF-8 turn would follow the UTF-16 bytes
      ["-c", "u16.chat", "Q"],
      ["-c", "u16.chat", "Q", "--dry-run"],
    ]
  ) {
    const r = await t.run(["llm", "ask", ...args]);
    assert.equal(r.code, 1, args.join(" "));
    assert.match(r.stderr, refused("u16.chat"), args.join(" "));
    assert.equal(r.stderr.split("\n").length, 2, "one line: " + r.stderr);
    assert.equal(r.stdout, "");
  }
  assert.equal(t.srv.requests.length, 0, "nothing sent to the model");
  assert.deepEqual(t.bytes("u16.chat"), U16, "the chat untouched");
  // a link to it: its target is the chat, refused the same
  Deno.symlinkSync("u16.chat", join(t.dir.path, "link.chat"));
  const l = await t.run(["llm", "ask", "-o", "link.chat", "Q"]);
  assert.match(l.stderr, refused("link.chat"));
  // the other marks
  for (
    const [form, encoding, mark] of [
      ["16be", "UTF-16", "FE FF"],
      ["32le", "UTF-32", "FF FE 00 00"],
      ["32be", "UTF-32", "00 00 FE FF"],
    ] as const
  ) {
    put(t.dir.path, "w.chat", wide(CHAT, form));
    const r = await t.run(["llm", "ask", "-c", "w.chat", "-o", "w.chat", "Q"]);
    assert.equal(r.code, 1, form);
    assert.match(r.stderr, refused("w.chat", encoding, mark), form);
    assert.deepEqual(t.bytes("w.chat"), wide(CHAT, form), form);
  }
  assert.equal(t.srv.requests.length, 0);
});

Deno.test("llm ask / agent ask: a UTF-16 chat on stdin, -i, -i -, import: or start_chat is refused before any request (R133-1)", async () => {
  await using t = await setup();
  const stdinChat = await t.scout(["llm", "ask", "-c", "-", "Q", "-o", "out.chat"], U16);
  assert.equal(stdinChat.code, 1);
  assert.match(stdinChat.stderr, refused("<stdin>"));
  const question = await t.scout(["llm", "ask", "-o", "out.chat"], U16); // the question on stdin
  assert.match(question.stderr, refused("<stdin>"));
  const importStdin = await t.scout(["llm", "ask", "-i", "-", "Q", "-o", "out.chat"], U16);
  assert.match(importStdin.stderr, refused("<stdin>"));
  const i = await t.run(["llm", "ask", "-i", "u16.chat", "Q", "-o", "out.chat"]);
  assert.equal(i.code, 1);
  assert.match(i.stderr, refused("u16.chat", "UTF-16", "FF FE", "Import"));
  assert.match(i.stderr, / \(-i\)\n$/);
  put(t.dir.path, "main.chat", "import: u16.chat\n\nuser: hi\n");
  const m = await t.run(["llm", "ask", "-c", "main.chat", "Q", "-o", "out.chat"]);
  assert.equal(m.code, 1);
  assert.match(m.stderr, refused("u16.chat", "UTF-16", "FF FE", "Import"));
  assert.match(m.stderr, / \(main\.chat:1\)\n$/);
  put(t.dir.path, "questions/terse", U16);
  const tpl = await t.run(["llm", "ask", "-t", "questions/terse", "Q", "-o", "out.chat"]);
  assert.equal(tpl.code, 1);
  assert.match(tpl.stderr, /^scout-ai: Template ".*terse" is UTF-16 text/);
  put(t.dir.path, "Agent/Planner/start_chat", U16);
  clearAgentCache();
  const a = await t.run(["agent", "ask", "Planner", "go", "-o", "out.chat"]);
  assert.equal(a.code, 1);
  assert.match(a.stderr, /^scout-ai: Chat ".*Planner\/start_chat" is UTF-16 text \(byte-order/);
  for (const r of [stdinChat, question, importStdin, i, m, tpl, a]) assert.equal(r.code, 1);
  assert.equal(t.srv.requests.length, 0, "nothing sent to the model");
  assert.equal(existsSync(join(t.dir.path, "out.chat")), false, "nothing saved");
});

Deno.test("chat parse / compile / prompt and llm prov refuse a UTF-16 chat, file or stdin (R133-1)", async () => {
  await using t = await setup();
  const o = { env: t.env, cwd: t.dir.path };
  for (const cmd of [["chat", "parse"], ["chat", "compile"], ["chat", "prompt"]]) {
    const r = await runMain([...cmd, "u16.chat"], o);
    assert.equal(r.code, 1, cmd.join(" "));
    assert.match(r.stderr, refused("u16.chat"), cmd.join(" "));
    assert.equal(r.stdout, "", cmd.join(" "));
    const s = await runScout([...cmd, "-"], { ...o, stdin: U16 });
    assert.equal(s.code, 1, cmd.join(" ") + " -");
    assert.match(s.stderr, refused("<stdin>"), cmd.join(" ") + " -");
  }
  const p = await runMain(["llm", "prov", "u16.chat"], o);
  assert.equal(p.code, 1);
  assert.match(
    p.stderr,
    /^scout-ai: Cannot read chat "u16\.chat": UTF-16 text \(byte-order mark FF FE\); scout-ai reads chats as UTF-8/,
  );
  assert.deepEqual(t.bytes("u16.chat"), U16);
});

Deno.test("a file: of a UTF-16 text is data: attached with the invalid-UTF-8 warning, as before (R133-1)", async () => {
  await using t = await setup();
  put(t.dir.path, "notes.txt", utf16le("notes\n"));
  put(t.dir.path, "f.chat", "user:\n\nfile: notes.txt\n\nsummarise\n");
  const r = await t.run(["llm", "ask", "-c", "f.chat", "-o", "f.chat", "go"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "scout-ai: warning: notes.txt: invalid UTF-8 replaced by U+FFFD\n");
  assert.equal(t.srv.requests.length, 1);
  assert.match(JSON.stringify(t.srv.requests[0]!.body), /\uFFFD\uFFFDn\\u0000o\\u0000t/);
  assert.match(
    readFileSync(join(t.dir.path, "f.chat"), "utf8"),
    /file: notes\.txt[\s\S]*the answer\n$/,
  );
});

Deno.test("a chat made UTF-16 after the -o check is not appended to: the save refuses, the file kept (R133-1)", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "late.chat");
  writeFileSync(file, U16);
  const env = { SCOUT_HOME: join(dir.path, "home") };
  const turn = [{ role: "user", content: "Q" }, { role: "assistant", content: "A" }];
  await assert.rejects(
    appendToChat(file, turn, env, () => {}, { shown: "late.chat" }),
    (e) => isScoutError(e, "chat_encoding") && e.file === "late.chat",
  );
  assert.equal(appendToChatSync(file, turn, env), false, "the signal path's save gives up");
  assert.deepEqual(new Uint8Array(readFileSync(file)), U16);
});
