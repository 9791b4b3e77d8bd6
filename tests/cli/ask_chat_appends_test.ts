/**
 * `-c FILE` alone appends the turn to FILE, as the Ruby scout-ai does (R149-2,
 * agents.md §5.1 step 5 and §5.3): the same file as `-c FILE -o FILE` gives,
 * for `llm ask` and `agent ask`; `-c FILE -o OTHER` writes OTHER only;
 * `--dry-run` and `-c -` write nothing; a missing `-c` file is made.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { ASK_COMMANDS, askWorkspace } from "../support/ask_cli.ts";
import { put } from "../support/files.ts";

const HISTORY = "user: first\n\nassistant: one\n";

/** The chat without its meta records (their timings differ between two runs). */
function turns(file: string): string {
  return readFileSync(file, "utf8").split(/\n(?=\w+:)/).filter((b) => !b.startsWith("meta:"))
    .join("\n");
}

for (const [name, cmd] of ASK_COMMANDS) {
  Deno.test(`${name} -c FILE alone appends the turn to FILE, as -c FILE -o FILE does (R149-2)`, async () => {
    await using t = await askWorkspace("the answer");
    put(t.dir.path, "alone.chat", HISTORY);
    put(t.dir.path, "both.chat", HISTORY);
    const a = await t.run([...cmd, "-c", "alone.chat", "more"]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(a.stdout, "the answer\n");
    const b = await t.run([...cmd, "-c", "both.chat", "-o", "both.chat", "more"]);
    assert.equal(b.code, 0, b.stderr);
    const alone = readFileSync(t.path("alone.chat"), "utf8");
    assert.match(alone, /^user: first\n\nassistant: one\n\nuser:\s*\n?more\n[\s\S]*the answer\n$/);
    assert.match(alone, /\nmeta: /);
    assert.equal(turns(t.path("alone.chat")), turns(t.path("both.chat")));
    // the next turn continues it: the history sent holds the first turn's answer
    const next = await t.run([...cmd, "-c", "alone.chat", "and again"]);
    assert.equal(next.code, 0, next.stderr);
    const sent = JSON.stringify(t.srv.requests.at(-1)!.body);
    assert.match(sent, /more[\s\S]*the answer[\s\S]*and again/);
  });

  Deno.test(`${name} -c FILE -o OTHER writes OTHER only; --dry-run and -c - write nothing (R149-2)`, async () => {
    await using t = await askWorkspace("the answer");
    put(t.dir.path, "in.chat", HISTORY);
    const o = await t.run([...cmd, "-c", "in.chat", "-o", "out.chat", "more"]);
    assert.equal(o.code, 0, o.stderr);
    assert.equal(readFileSync(t.path("in.chat"), "utf8"), HISTORY);
    assert.match(readFileSync(t.path("out.chat"), "utf8"), /more[\s\S]*the answer/);
    const d = await t.run([...cmd, "-c", "in.chat", "--dry-run", "more"]);
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stdout, /more/);
    assert.equal(readFileSync(t.path("in.chat"), "utf8"), HISTORY);
    const dm = await t.run([...cmd, "-c", "none.chat", "--dry-run", "more"]);
    assert.equal(dm.code, 0, dm.stderr);
    assert.equal(existsSync(t.path("none.chat")), false);
    const s = await t.run([...cmd, "-c", "-", "more"], HISTORY);
    assert.equal(s.code, 0, s.stderr);
    assert.equal(existsSync(t.path("-")), false);
  });

  Deno.test(`${name} -c of a read-only chat is refused before asking, naming -c (R149-2)`, async () => {
    await using t = await askWorkspace("the answer");
    put(t.dir.path, "ro.chat", HISTORY);
    Deno.chmodSync(t.path("ro.chat"), 0o444);
    const r = await t.run([...cmd, "-c", "ro.chat", "more"]);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^scout-ai: Cannot write -c "ro\.chat": .*-o FILE writes it elsewhere\)/,
    );
    assert.equal(t.srv.requests.length, 0);
  });

  Deno.test(`${name} -c of a missing file starts the conversation and makes the file (R149-2)`, async () => {
    await using t = await askWorkspace("the answer");
    const r = await t.run([...cmd, "-c", "sub/new.chat", "hello"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      readFileSync(t.path("sub/new.chat"), "utf8"),
      /^user:\s*\n?hello\n[\s\S]*the answer\n$/,
    );
  });
}

Deno.test("llm ask -c FILE alone appends nothing when the ask fails, as Ruby's; -o FILE keeps the chat so far", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ status: 500 }) });
  const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "sk-x" };
  const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-O", "max_retries=0", "-m", "m"];
  for (const file of ["alone.chat", "out.chat"]) put(dir.path, file, HISTORY);
  const alone = await runMain(["llm", "ask", "-c", "alone.chat", "more", ...flags], {
    env,
    cwd: dir.path,
  });
  assert.equal(alone.code, 1);
  assert.doesNotMatch(alone.stderr, /appended/, alone.stderr);
  assert.equal(readFileSync(join(dir.path, "alone.chat"), "utf8"), HISTORY, "unchanged");
  const out = await runMain(["llm", "ask", "-c", "out.chat", "-o", "out.chat", "more", ...flags], {
    env,
    cwd: dir.path,
  });
  assert.equal(out.code, 1);
  assert.match(out.stderr, /the chat so far was appended to "out\.chat"/);
  assert.match(readFileSync(join(dir.path, "out.chat"), "utf8"), /user:\s+more/);
});
