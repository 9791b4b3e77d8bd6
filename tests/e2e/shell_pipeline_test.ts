/**
 * `scout-ai` in shell pipelines (review R81), from source and as the built
 * binary, run by a real `bash`: a closed stdout (`| true`, `| head -1`) does
 * not lose a chat saved with `-o`; outputs given as links, `>(…)` or FIFOs
 * land where they point and replace nothing; inputs given as `<(…)` are
 * read; a root chat that cannot be read is an error.
 */
import assert from "node:assert/strict";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { parse } from "../../src/chat/parse.ts";
import { buildBinary, ROOT, tempDir } from "../support/cli.ts";
import { put } from "../support/files.ts";
import { quote, type Runner, RUNNERS, sh } from "../support/bash.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { waitFor } from "../support/wait.ts";

const PROV = join(ROOT, "fixtures", "provenance", "example");

/** The chat's messages that have text, as [role, content], meta lines left out. */
function said(file: string): [string, unknown][] {
  return parse(readFileSync(file, "utf8"))
    .filter((m) => m.role !== "meta" && m.content !== "")
    .map((m) => [m.role, m.content]);
}

/** Files left in `dir` whose names are a link's unresolvable target (`pipe:[N]`). */
const stray = (dir: string) => readdirSync(dir).filter((n) => /^(pipe|socket|anon_inode):/.test(n));

async function setup() {
  await buildBinary();
  const dir = await tempDir();
  const answer = "first line\n" + "more of a long answer\n".repeat(20_000); // ~440 KB: fills any pipe
  const srv = await startProviderServer({
    fallback: (req) => ({
      text: String(JSON.stringify(req.body)).includes("LONG") ? answer : "short answer",
    }),
  });
  put(dir.path, "Agent/Plain/start_chat", "system: You are plain\n\nbackend: openai\n\nmodel: m\n");
  put(
    dir.path,
    "Agent/Plain/agent.ts",
    `export default (_api, agent) => { agent.options.url = "${srv.url}"; };\n`,
  );
  const env = {
    SCOUT_HOME: join(dir.path, "home"),
    HOME: dir.path,
    OPENAI_API_KEY: "sk-pipe",
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
  };
  const flags = `-b openai -O url=${srv.url} -m m --no-cache`;
  return {
    dir,
    srv,
    answer,
    flags,
    run: (runner: Runner, script: string) => sh(runner, script, { cwd: dir.path, env }),
    [Symbol.asyncDispose]: async () => {
      await srv.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

Deno.test("R81-1: a streamed answer is saved to -o when stdout's reader is gone (| true, | head -1); exit 0", async () => {
  await using t = await setup();
  for (const runner of Object.keys(RUNNERS) as Runner[]) {
    const at = (f: string) => join(t.dir.path, `${runner}-${f}`);
    const r = await t.run(
      runner,
      `scout llm ask --stream ${t.flags} -o ${runner}-s.chat "short question" | true
       echo "s=\${PIPESTATUS[0]}"
       scout llm ask --stream ${t.flags} -o ${runner}-long.chat "LONG question" | head -1
       echo "long=\${PIPESTATUS[0]}"
       scout agent ask Plain --stream --no-cache -o ${runner}-agent.chat "LONG one" | head -1
       echo "agent=\${PIPESTATUS[0]}"`,
    );
    assert.equal(
      r.stdout,
      "s=0\nfirst line\nlong=0\nfirst line\nagent=0\n",
      `${runner}: ${r.stderr}`,
    );
    assert.equal(r.stderr, "", runner);
    assert.deepEqual(said(at("s.chat")), [["user", "short question"], [
      "assistant",
      "short answer",
    ]]);
    assert.deepEqual(said(at("long.chat")), [["user", "LONG question"], [
      "assistant",
      t.answer.trimEnd(),
    ]]);
    assert.deepEqual(said(at("agent.chat")), [["user", "LONG one"], [
      "assistant",
      t.answer.trimEnd(),
    ]]);
  }
});

Deno.test("R81-2: llm prov's files through a link, to >(…) and to a link to stdout: written there, nothing replaced", async () => {
  await using t = await setup();
  const real = join(t.dir.path, "sl", "real.html");
  const main = `${PROV}/session.chat --jobs-dir ${PROV}/jobs`;
  for (const runner of Object.keys(RUNNERS) as Runner[]) {
    rmSync(join(t.dir.path, "sl"), { recursive: true, force: true });
    mkdirSync(join(t.dir.path, "sl"));
    writeFileSync(real, "old");
    Deno.symlinkSync("real.html", join(t.dir.path, "sl", "out.html"));
    Deno.symlinkSync("/proc/self/fd/1", join(t.dir.path, "sl", "stdout"));
    const r = await t.run(
      runner,
      `scout llm prov ${main} --html sl/out.html; echo "html=$?"
       scout llm prov ${main} --dot >(wc -c > sl/dot.size); echo "dot=$?"
       scout llm prov ${main} --html sl/stdout | wc -c > sl/page.size; echo "page=\${PIPESTATUS[0]}"`,
    );
    // >(…) may end after the shell: wait (a deadline) for wc's line
    const dotSize = join(t.dir.path, "sl", "dot.size");
    await waitFor(() => /^\s*\d+\n$/.test(readFileSync(dotSize, "utf8")));
    assert.match(r.stdout, /^html=0\ndot=0\npage=\d\n$/, `${runner}: ${r.stderr}`);
    assert.ok(readFileSync(real, "utf8").startsWith("<!DOCTYPE html>"), runner);
    assert.ok(Deno.lstatSync(join(t.dir.path, "sl", "out.html")).isSymlink, "the link stays");
    assert.ok(Deno.lstatSync(join(t.dir.path, "sl", "stdout")).isSymlink, "the link stays");
    assert.ok(Number(readFileSync(dotSize, "utf8")) > 100, runner);
    // from source too: `deno task scout` runs with -A, which reaches /dev and /proc (R81-6)
    assert.match(r.stdout, /page=0/, runner);
    assert.ok(Number(readFileSync(join(t.dir.path, "sl", "page.size"), "utf8")) > 10_000, runner);
    assert.deepEqual(readdirSync(join(t.dir.path, "sl")).sort(), [
      "dot.size",
      "out.html",
      "page.size",
      "real.html",
      "stdout",
    ]);
  }
});

Deno.test("R81-2: -o >(…) gets the chat, --inline <(…) is a usage error; no stray pipe:[N] file", async () => {
  await using t = await setup();
  for (const runner of Object.keys(RUNNERS) as Runner[]) {
    const got = join(t.dir.path, `${runner}-got.chat`);
    const r = await t.run(
      runner,
      `scout llm ask ${t.flags} -o >(cat > ${runner}-got.chat) "hi there"; echo "o=$?"
       scout llm ask ${t.flags} --inline <(printf '# ask: hi\\n'); echo "inline=$?"`,
    );
    // >(cat …) may end after the shell: wait (a deadline) for the whole chat
    const chat = [["user", "hi there"], ["assistant", "short answer"]];
    await waitFor(() => isDeepStrictEqual(said(got), chat));
    assert.equal(r.stdout, "short answer\no=0\ninline=2\n", `${runner}: ${r.stderr}`);
    assert.match(r.stderr, /Cannot answer "\/dev\/fd\/\d+" inline: it is a pipe or a terminal/);
    assert.deepEqual(said(got), chat, runner);
    assert.deepEqual(stray(t.dir.path), [], runner);
  }
  assert.equal(t.srv.requests.length, 2, "--inline asked nothing");
});

Deno.test("R81-7: -f, -i, -t and llm prov read <(…)", async () => {
  await using t = await setup();
  writeFileSync(join(t.dir.path, "conv.chat"), "user: hello there\n");
  for (const runner of Object.keys(RUNNERS) as Runner[]) {
    const r = await t.run(
      runner,
      `scout llm ask -f <(printf 'DIFF TEXT') "Review this" --dry-run
       scout llm ask -i <(printf 'system: be brief\\n') q --dry-run
       scout llm ask -t <(printf 'user: T ???\\n') q --dry-run
       scout llm prov <(cat conv.chat); echo "prov=$?"`,
    );
    assert.equal(r.stderr, "", runner);
    assert.match(r.stdout, /<file name="\/dev\/fd\/\d+">\nDIFF TEXT\n<\/file>/, runner);
    assert.match(r.stdout, /system:\n\nbe brief\n/, runner);
    assert.match(r.stdout, /user:\n\nT q\n/, runner);
    assert.match(r.stdout, /\nchat \/dev\/fd\/\d+\nprov=0\n$/, runner); // R94-10: not "63"
  }
});

Deno.test("R81-8: llm prov on a root chat it cannot read fails with exit 1, naming the file and why", async () => {
  await using t = await setup();
  writeFileSync(join(t.dir.path, "unread.chat"), "user: hi\n");
  chmodSync(join(t.dir.path, "unread.chat"), 0o000);
  using _socket = Deno.listen({ transport: "unix", path: join(t.dir.path, "sock.chat") });
  // root reads anything: without the capabilities that let it, mode 000 is unreadable to it too
  const drop = Deno.uid() === 0 ? "setpriv --bounding-set=-dac_override,-dac_read_search -- " : "";
  for (const runner of Object.keys(RUNNERS) as Runner[]) {
    const prefix = drop + RUNNERS[runner]!.map(quote).join(" ");
    const r = await t.run(
      runner,
      `${prefix} llm prov unread.chat; echo "tree=$?"
       ${prefix} llm prov unread.chat --json; echo "json=$?"
       scout llm prov sock.chat; echo "socket=$?"`,
    );
    // --json prints its error document on stdout too (R128-6)
    const doc = JSON.stringify({
      version: 1,
      status: "error",
      error: 'Permission denied: "unread.chat"',
    });
    assert.equal(r.stdout, `tree=1\n${doc}\njson=1\nsocket=1\n`, `${runner}: ${r.stderr}`);
    assert.equal(
      r.stderr,
      'scout-ai: Permission denied: "unread.chat"\n'.repeat(2) +
        'scout-ai: Cannot read "sock.chat": not a file, a pipe or a terminal\n',
      runner,
    );
  }
  assert.ok(existsSync(join(t.dir.path, "unread.chat")));
});
