/**
 * A chat a git merge left in conflict, imported by another (`import:`,
 * `continue:`) or given to `-i` (R133-2): refused as the `-c` chat is — the
 * same message, the imported file's `<<<<<<<` line, no request — and a
 * conflict inside one message sent with the `-c` warning; `chat compile`
 * warns and goes on. The conflict is a real one: two git branches each
 * continued the chat with `llm ask -c c.chat -o c.chat`, then were merged.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { DISCUSSED_CONFLICT } from "../support/merge_conflict.ts";

async function git(cwd: string, ...args: string[]): Promise<number> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.name=t", "-c", "user.email=t@example.org", ...args],
    cwd,
    env: { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
    stdout: "null",
    stderr: "piped",
  }).output();
  return out.code;
}

async function setup() {
  const dir = await tempDir();
  let answer = "answer 0";
  const srv = await startProviderServer({ fallback: () => ({ text: answer }) });
  const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "sk-x" };
  const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--no-cache"];
  const run = (args: string[], stdin?: string) =>
    runMain(args[0] === "llm" ? [...args, ...flags] : args, {
      env,
      cwd: dir.path,
      ...(stdin ? { stdin } : {}),
    });
  const cwd = dir.path;
  /** Two branches each add a turn to c.chat with `llm ask -c -o`; their merge conflicts. */
  const mergeConflictedChat = async (): Promise<number> => {
    assert.equal(await git(cwd, "init", "-q", "-b", "main"), 0);
    assert.equal((await run(["llm", "ask", "-o", "c.chat", "Q0"])).code, 0);
    assert.equal(await git(cwd, "add", "c.chat"), 0);
    assert.equal(await git(cwd, "commit", "-q", "-m", "base"), 0);
    assert.equal(await git(cwd, "checkout", "-q", "-b", "featA"), 0);
    answer = "answer A";
    assert.equal((await run(["llm", "ask", "-c", "c.chat", "-o", "c.chat", "QA"])).code, 0);
    assert.equal(await git(cwd, "commit", "-q", "-am", "A"), 0);
    assert.equal(await git(cwd, "checkout", "-q", "main"), 0);
    answer = "answer B";
    assert.equal((await run(["llm", "ask", "-c", "c.chat", "-o", "c.chat", "QB"])).code, 0);
    assert.equal(await git(cwd, "commit", "-q", "-am", "B"), 0);
    assert.equal(await git(cwd, "merge", "featA"), 1, "the merge conflicts");
    const lines = readFileSync(join(cwd, "c.chat"), "utf8").split("\n");
    const at = lines.findIndex((l) => l.startsWith("<<<<<<< ")) + 1;
    assert.ok(at > 0 && lines.some((l) => l.startsWith(">>>>>>> featA")));
    return at;
  };
  return {
    dir,
    srv,
    run,
    mergeConflictedChat,
    [Symbol.asyncDispose]: async () => {
      await srv.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

const refused = (line: number, file = "c.chat") =>
  new RegExp(
    `^scout-ai: Merge conflict in "${
      file.replace(".", "\\.")
    }": resolve the <<<<<<< / ======= / >>>>>>> markers first \\(${
      file.replace(".", "\\.")
    }:${line}\\)\\n$`,
  );

Deno.test("llm ask refuses a merge-conflicted chat given by import:, continue: or -i, as -c does (R133-2)", async () => {
  await using t = await setup();
  const line = await t.mergeConflictedChat();
  const sent = t.srv.requests.length;
  const direct = await t.run(["llm", "ask", "-c", "c.chat", "Q"]);
  assert.equal(direct.code, 1);
  assert.match(direct.stderr, refused(line), "-c: the reference refusal");
  writeFileSync(join(t.dir.path, "main.chat"), "import: c.chat\n\nuser:\n\nsummarise\n");
  writeFileSync(join(t.dir.path, "cont.chat"), "continue: c.chat\n\nuser:\n\nsummarise\n");
  const conflicted = readFileSync(join(t.dir.path, "c.chat"), "utf8");
  for (
    const [args, stdin] of [
      [["llm", "ask", "-c", "main.chat", "Q"]],
      [["llm", "ask", "-c", "cont.chat", "Q"]],
      [["llm", "ask", "-c", "main.chat", "-o", "main.chat", "Q"]],
      [["llm", "ask", "-i", "c.chat", "Q"]],
      [["llm", "ask", "-i", "c.chat", "Q", "--dry-run"]],
    ] as [string[], string?][]
  ) {
    const r = await t.run(args, stdin);
    assert.equal(r.code, 1, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, refused(line), args.join(" "));
  }
  const s = await t.run(["llm", "ask", "-i", "-", "Q"], conflicted);
  assert.equal(s.code, 1, s.stderr);
  assert.match(s.stderr, refused(line, "<stdin>"));
  assert.equal(t.srv.requests.length, sent, "nothing sent to the model");
  assert.equal(
    readFileSync(join(t.dir.path, "main.chat"), "utf8"),
    "import: c.chat\n\nuser:\n\nsummarise\n",
    "-o untouched",
  );
});

Deno.test("chat compile warns of a merge-conflicted imported chat with its file:line and goes on (R133-2)", async () => {
  await using t = await setup();
  const line = await t.mergeConflictedChat();
  writeFileSync(join(t.dir.path, "main.chat"), "import: c.chat\n\nuser:\n\nsummarise\n");
  for (const cmd of ["compile", "prompt"]) {
    const r = await t.run(["chat", cmd, "main.chat"]);
    assert.equal(r.code, 0, r.stderr);
    const warning = `scout-ai: warning: c.chat:${line}: merge conflict markers ` +
      `(<<<<<<< / ======= / >>>>>>>), read as text\n`;
    assert.equal(r.stderr.split(warning).length, 2, `${cmd}: once: ${r.stderr}`);
    assert.match(r.stdout, /answer A/, "compiled as written");
  }
});

Deno.test("an imported chat with a conflict inside one message is sent, with the -c warning (R133-2)", async () => {
  await using t = await setup();
  writeFileSync(join(t.dir.path, "pasted.chat"), DISCUSSED_CONFLICT);
  writeFileSync(join(t.dir.path, "main.chat"), "import: pasted.chat\n\nuser:\n\nand now?\n");
  const warning =
    /^scout-ai: warning: pasted\.chat:5: merge conflict markers inside a message, sent as text$/m;
  for (const args of [["-c", "main.chat"], ["-i", "pasted.chat"], ["-c", "pasted.chat"]]) {
    const r = await t.run(["llm", "ask", ...args, "Q"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, warning, args.join(" "));
  }
  assert.equal(t.srv.requests.length, 3);
  assert.match(JSON.stringify(t.srv.requests[0]!.body), /=======\\nport = 9090/);
});
