/**
 * `llm ask --stream` as a real process when the stream breaks: piped stdout
 * holds only the attempt that succeeded (equal to the saved answer); on a
 * real terminal (a pty from `script`) the cut text stays, marked, and the
 * fresh attempt starts on its own line; Ctrl-C mid-stream saves the partial
 * answer marked incomplete, prints exactly it, and `-c` continues from it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "../../src/chat/parse.ts";
import { DENO, runScout, SCOUT_SOURCE_ARGS, spawnScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

const CUT = { text: ["Part", " one.", " Part", " two."], cutAfter: 3 };
const FRESH = { text: ["Fresh", " one.", " Fresh", " two."] };

function args(url: string, ...rest: string[]): string[] {
  return ["llm", "ask", "-b", "openai", "-O", `url=${url}`, "-m", "m", "--no-cache", ...rest];
}

async function savedAnswers(path: string) {
  return parse(await Deno.readTextFile(path)).filter((m) => m.role === "assistant");
}

Deno.test("llm ask --stream into a pipe: a retried stream prints only the attempt that succeeded, equal to the saved answer", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  srv.script(CUT, FRESH);
  const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "k" };
  const r = await runScout(args(srv.url, "--stream", "-o", "s.chat", "Tell"), {
    env,
    cwd: dir.path,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(srv.requests.length, 2);
  assert.equal(r.stdout, "Fresh one. Fresh two.\n");
  const answers = await savedAnswers(join(dir.path, "s.chat"));
  assert.equal(answers.length, 1);
  assert.equal(r.stdout, answers[0]!.content + "\n");
  assert.match(r.stderr, /ended early, after 3 events \(\d+ bytes\).*retrying/);
});

Deno.test("llm ask --stream on a terminal: the cut text stays, a restart mark follows, the fresh attempt starts on its own line", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  srv.script(CUT, FRESH);
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  const cmd = [DENO, ...SCOUT_SOURCE_ARGS, ...args(srv.url, "--stream", "Tell")].map(quote)
    .join(" ");
  const out = await new Deno.Command("script", {
    args: ["-qec", cmd, "/dev/null"],
    cwd: dir.path,
    env: { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "k", NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout).replaceAll("\r\n", "\n");
  assert.equal(out.code, 0, text);
  assert.match(
    text,
    /^Part one\.\nscout-ai: .*ended early.*retrying in .* \(attempt 2\)\n↻ the answer restarts \(attempt 2\):\nFresh one\. Fresh two\.\n$/,
  );
});

Deno.test("llm ask: Ctrl-C mid-stream saves the partial answer marked incomplete; -c continues from it", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ ...FRESH, text: CUT.text, stallAfter: 3 });
  const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "k", NO_COLOR: "1" };
  const child = spawnScout(args(srv.url, "--stream", "-o", "s.chat", "Tell"), {
    cwd: dir.path,
    env,
  });
  while (srv.requests[0]?.firstByteAt === undefined) {
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 500));
  child.kill("SIGINT");
  const out = await child.output();
  const dec = new TextDecoder();
  const stderr = dec.decode(out.stderr);
  assert.equal(out.code, 130, stderr);
  assert.match(stderr, /scout-ai: Interrupted/);
  // what was printed is what was saved
  assert.equal(dec.decode(out.stdout), "Part one.\n");
  const chat = parse(await Deno.readTextFile(join(dir.path, "s.chat"))).filter((m) =>
    m.content !== ""
  );
  assert.deepEqual(chat.map((m) => m.role), ["user", "meta", "assistant"]);
  assert.equal(chat[2]!.content, "Part one.");
  assert.match(String(chat[1]!.content), /incomplete=true/);
  assert.match(String(chat[1]!.content), /reason=interrupted/);

  srv.script({ text: "Continued." });
  const r = await runScout(args(srv.url, "-c", "s.chat", "-o", "s.chat", "Go on"), {
    env,
    cwd: dir.path,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "Continued.\n");
  const sent = JSON.stringify(srv.requests.at(-1)!.body.messages);
  assert.ok(sent.includes(`{"role":"assistant","content":"Part one."}`), sent);
  const answers = await savedAnswers(join(dir.path, "s.chat"));
  assert.deepEqual(answers.map((m) => m.content), ["Part one.", "Continued."]);
});

Deno.test("llm ask: Ctrl-C after the finish chunk, before the usage chunk, exits 130 and marks the answer incomplete (R141-2)", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  // role, two texts and the finish chunk sent; the usage chunk and [DONE] held
  srv.script({ text: ["One ", "two."], id: "chatcmpl-033", stallAfter: 4 });
  const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "k", NO_COLOR: "1" };
  const child = spawnScout(args(srv.url, "--stream", "-o", "s.chat", "q"), { cwd: dir.path, env });
  while (srv.requests[0]?.firstByteAt === undefined) {
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 500));
  child.kill("SIGINT");
  const out = await child.output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 130, stderr);
  const chat = parse(await Deno.readTextFile(join(dir.path, "s.chat"))).filter((m) =>
    m.content !== ""
  );
  assert.deepEqual(chat.map((m) => m.role), ["user", "meta", "assistant"]);
  assert.equal(chat[2]!.content, "One two.");
  const meta = String(chat[1]!.content);
  assert.match(meta, /incomplete=true/);
  assert.match(meta, /reason=interrupted/);
  assert.doesNotMatch(meta, /provider_response_id/);
});
