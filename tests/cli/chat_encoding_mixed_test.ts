/**
 * A UTF-16/UTF-32 chat that a scout-ai from before R133-1 appended its turn
 * to in UTF-8 (R136-3): refused like any wide chat, but told as two
 * encodings — `iconv` on the whole file fails or garbles it — with the byte where
 * the UTF-8 part starts and a recipe that converts the wide part alone. The
 * recipe is run here (`sh`, `head`, `tail`, `iconv`) and its result read
 * back as the chat and the turn. A chat that is wide text alone keeps the
 * plain advice, which converts it whole.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain, runScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { olderAppend, wideBytes, type WideForm } from "../support/wide_text.ts";

const CHAT = "system:\r\n\r\nBe terse.\r\n\r\nuser:\r\n\r\nhéllo\r\n";
const FORMS = [
  ["16le", "UTF-16", "FF FE"],
  ["16be", "UTF-16", "FE FF"],
  ["32le", "UTF-32", "FF FE 00 00"],
  ["32be", "UTF-32", "00 00 FE FF"],
] as const;

/** Runs `command` with `sh` in `cwd`. */
async function sh(command: string, cwd: string): Promise<void> {
  const out = await new Deno.Command("sh", { args: ["-c", command], cwd, stderr: "piped" })
    .output();
  assert.equal(out.code, 0, `${command}: ${new TextDecoder().decode(out.stderr)}`);
}

/** The messages `chat parse --json` reads from `file`. */
async function parsed(file: string, o: { cwd: string; env: Record<string, string> }) {
  const r = await runMain(["chat", "parse", file, "--json"], o);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

Deno.test("a wide chat an older scout-ai appended UTF-8 to: told as two encodings, its recipe recovers it (R136-3)", async () => {
  await using d = await tempDir();
  const o = { cwd: d.path, env: { SCOUT_HOME: join(d.path, "home"), HOME: d.path } };
  // what the file should read as: the chat, then the turn, all UTF-8
  writeFileSync(join(d.path, "want.chat"), CHAT.trimEnd() + "\n\nassistant:\n\nthe ánswer\n");
  const want = await parsed("want.chat", o);
  for (const [form, encoding, mark] of FORMS) {
    const mixed = olderAppend(wideBytes(CHAT, form as WideForm));
    writeFileSync(join(d.path, "mixed.chat"), mixed);
    const r = await runMain(["chat", "parse", "mixed.chat"], o);
    assert.equal(r.code, 1, form);
    const m = new RegExp(
      `^scout-ai: Chat "mixed\\.chat" is ${encoding} text \\(byte-order mark ${mark}\\) with ` +
        `UTF-8 text appended from byte (\\d+) on \\(two encodings: .*\\(iconv on the whole file ` +
        `reads that as ${encoding} too\\): (.+)\\n$`,
    ).exec(r.stderr);
    assert.ok(m, `${form}: ${r.stderr}`);
    const turn = new TextEncoder().encode("\n\nassistant:\n\nthe ánswer\n");
    assert.equal(Number(m[1]), mixed.length - turn.length, `${form}: where the UTF-8 starts`);
    assert.match(m[2]!, / > mixed\.chat\.utf8$/);
    await sh(m[2]!, d.path);
    assert.deepEqual(await parsed("mixed.chat.utf8", o), want, form);
    // iconv on the whole file fails (a UTF-8 part of odd length) or garbles it: the recipe's reason
    const whole = await new Deno.Command("sh", {
      args: ["-c", `iconv -f ${encoding} -t UTF-8 mixed.chat > whole.chat`],
      cwd: d.path,
      stderr: "null",
    }).output();
    if (whole.code === 0) assert.notDeepEqual(await parsed("whole.chat", o), want, form);
  }
});

Deno.test("a wide chat alone keeps the plain iconv advice, which converts it (R136-3)", async () => {
  await using d = await tempDir();
  const o = { cwd: d.path, env: { SCOUT_HOME: join(d.path, "home"), HOME: d.path } };
  writeFileSync(join(d.path, "want.chat"), CHAT);
  const want = await parsed("want.chat", o);
  for (const [form, encoding, mark] of FORMS) {
    writeFileSync(join(d.path, "w.chat"), wideBytes(CHAT, form as WideForm));
    const r = await runMain(["chat", "parse", "w.chat"], o);
    assert.equal(
      r.stderr,
      `scout-ai: Chat "w.chat" is ${encoding} text (byte-order mark ${mark}); scout-ai reads ` +
        `chats as UTF-8: save it as UTF-8 (iconv -f ${encoding} -t UTF-8)\n`,
      form,
    );
    await sh(`iconv -f ${encoding} -t UTF-8 w.chat > w.utf8.chat`, d.path);
    assert.deepEqual(await parsed("w.utf8.chat", o), want, form);
  }
});

Deno.test("llm ask -o, -c -, import: of a mixed chat: the same account, nothing sent or written (R136-3)", async () => {
  await using d = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "the answer" }) });
  const env = { SCOUT_HOME: join(d.path, "home"), HOME: d.path, OPENAI_API_KEY: "sk-x" };
  const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--no-cache"];
  const mixed = olderAppend(wideBytes(CHAT, "16le"));
  const file = join(d.path, "mixed.chat");
  writeFileSync(file, mixed);
  const from = mixed.length - new TextEncoder().encode("\n\nassistant:\n\nthe ánswer\n").length;
  const told = (name: string, noun = "Chat") =>
    `${noun} "${name}" is UTF-16 text (byte-order mark FF FE) with UTF-8 text appended from ` +
    `byte ${from} on (two encodings`;
  const o = { cwd: d.path, env };
  // -o: checked before the ask, on the file's first bytes, then on the whole of it
  const out = await runMain(["llm", "ask", "-o", "mixed.chat", "Q", ...flags], o);
  assert.equal(out.code, 1);
  assert.ok(out.stderr.startsWith(`scout-ai: ${told("mixed.chat")}`), out.stderr);
  // stdin: the recipe names no file it cannot read
  const stdin = await runScout(["llm", "ask", "-c", "-", "Q", ...flags], { ...o, stdin: mixed });
  assert.ok(stdin.stderr.startsWith(`scout-ai: ${told("<stdin>")}`), stdin.stderr);
  assert.match(stdin.stderr, /\{ \{ head -c \d+ FILE; printf '\\000'; \} \| iconv /);
  // an import: named as written, the recipe on the file found
  writeFileSync(join(d.path, "main.chat"), "import: mixed.chat\n\nuser: hi\n");
  const imp = await runMain(["llm", "ask", "-c", "main.chat", "Q", ...flags], o);
  assert.ok(imp.stderr.startsWith(`scout-ai: ${told("mixed.chat", "Import")}`), imp.stderr);
  assert.ok(imp.stderr.includes(`head -c ${from} ${file};`), imp.stderr);
  assert.equal(srv.requests.length, 0, "nothing sent to the model");
  assert.deepEqual(new Uint8Array(readFileSync(file)), mixed, "the chat untouched");
});
