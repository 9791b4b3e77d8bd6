/**
 * Arguments, `SCOUT_HOME` and a working directory that are not UTF-8
 * (R102-3, R102-4): the binary and the source CLI, as real processes, stop
 * with one line and exit 2 before anything is read or written — no file or
 * directory named with U+FFFD in place of the bytes — while a U+FFFD typed
 * as such (valid UTF-8) is still taken. Deno cannot pass such bytes to a
 * child, so each run goes through `sh`, which makes them with `printf %b`.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  BINARY,
  buildBinary,
  DENO,
  runCommand,
  SCOUT_SOURCE_ARGS,
  tempDir,
} from "../support/cli.ts";
import type { CliResult } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

/** The byte 0xE9 (Latin-1 é), as `printf %b` writes it. */
const E9 = "\\0351";

/** The line both runtimes print for what is not UTF-8. */
const TAIL =
  " is not valid UTF-8: scout-ai cannot name such a file or read such text; rename the file";

/** One of the two ways of running scout-ai, as a command line. */
type Runner = { name: string; argv: readonly string[] };

const RUNNERS: readonly Runner[] = [
  { name: "binary", argv: [BINARY] },
  { name: "source", argv: [DENO, ...SCOUT_SOURCE_ARGS] },
];

/** `text` as a shell word whose `\0NNN` escapes become bytes (`printf %b`). */
function bytesWord(text: string): string {
  return `"$(printf %b '${text.replaceAll("'", `'\\''`)}')"`;
}

/**
 * Runs `runner` with `args` through sh: each argument, the value of each of
 * `env` and the directory `cwd` (all `printf %b` text) made into bytes.
 */
function runRaw(
  runner: Runner,
  args: readonly string[],
  opts: { env?: Record<string, string>; cwd: string },
): Promise<CliResult> {
  const exports = Object.entries(opts.env ?? {}).map(([k, v]) => `export ${k}=${bytesWord(v)}; `);
  const script = `${exports.join("")}cd ${bytesWord(opts.cwd)} || exit 97; exec ` +
    [...runner.argv.map((a) => bytesWord(a)), ...args.map(bytesWord)].join(" ");
  return runCommand("sh", ["-c", script], {});
}

/** The bytes of a file whose name is `printf %b` text, as sh's `od` dumps them (hex). */
async function fileHex(path: string): Promise<string> {
  const r = await runCommand("sh", ["-c", `od -An -tx1 ${bytesWord(path)} | tr -d ' \\n'`], {});
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

/** The names in a directory (`ls -A`, one a line: bad bytes come back as U+FFFD). */
async function entries(dir: string): Promise<string[]> {
  const r = await runCommand("sh", ["-c", `ls -A ${bytesWord(dir)}`], {});
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.split("\n").filter((n) => n !== "");
}

Deno.test({
  name: "a file name argument that is not UTF-8: exit 2, one line, nothing read or written",
  sanitizeResources: false,
  fn: async () => {
    await buildBinary();
    await using dir = await tempDir();
    await using srv = await startProviderServer({ fallback: () => ({ text: "A." }) });
    const work = join(dir.path, "w");
    await Deno.mkdir(work);
    const chat = `x${E9}.chat`;
    const made = await runCommand("sh", [
      "-c",
      `printf 'user:\\n\\nsecret context\\n' > ${bytesWord(chat)}`,
    ], { cwd: work });
    assert.equal(made.code, 0, made.stderr);
    const before = await fileHex(join(work, chat));
    const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "sk-test-4242" };
    const ask = ["llm", "ask", "-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--no-cache"];
    for (const runner of RUNNERS) {
      const r = await runRaw(runner, [...ask, "-c", chat, "-o", chat, "q1"], { env, cwd: work });
      assert.equal(r.code, 2, `${runner.name}: ${r.stderr}`);
      assert.equal(r.stdout, "");
      assert.equal(
        r.stderr,
        `scout-ai: argument 11 ("x\\xe9.chat")${TAIL}, or give the text in UTF-8\n`,
      );
      assert.equal(await fileHex(join(work, chat)), before, runner.name);
      assert.ok(!existsSync(join(work, "x\uFFFD.chat")), `${runner.name} made x\uFFFD.chat`);
      assert.equal((await entries(work)).length, 1, runner.name);
      // -f takes its file as an argument like any other
      const f = await runRaw(runner, [...ask, "-f", chat, "q"], { env, cwd: work });
      assert.equal(f.code, 2, `${runner.name}: ${f.stderr}`);
      assert.match(
        f.stderr,
        /^scout-ai: argument 11 \("x\\xe9\.chat"\) is not valid UTF-8: [^\n]*\n$/,
      );
    }
    assert.equal(srv.requests.length, 0);
  },
});

Deno.test({
  name: "SCOUT_HOME that is not UTF-8: exit 2, one line, no store made beside it",
  sanitizeResources: false,
  fn: async () => {
    await buildBinary();
    await using dir = await tempDir();
    const home = join(dir.path, `H${E9}`);
    for (const runner of RUNNERS) {
      const r = await runRaw(runner, ["config", "set", "endpoint", "nano", "ask"], {
        env: { SCOUT_HOME: home },
        cwd: dir.path,
      });
      assert.equal(r.code, 2, `${runner.name}: ${r.stderr}`);
      const shown = `${dir.path}/H\\xe9`;
      assert.equal(
        r.stderr,
        `scout-ai: environment variable SCOUT_HOME ("${shown}")${TAIL}, or give SCOUT_HOME a UTF-8 value\n`,
      );
      assert.deepEqual(await entries(dir.path), [], `${runner.name} made a store`);
    }
  },
});

Deno.test({
  name: "a working directory that is not UTF-8: exit 2, one line, no sibling directory made",
  sanitizeResources: false,
  fn: async () => {
    await buildBinary();
    await using dir = await tempDir();
    await using srv = await startProviderServer({ fallback: () => ({ text: "A." }) });
    const bad = join(dir.path, `bad${E9}`);
    const made = await runCommand("sh", [
      "-c",
      `mkdir ${bytesWord(bad)} && printf 'user:\\n\\nhi\\n' > ${bytesWord(`${bad}/a.chat`)}`,
    ], {});
    assert.equal(made.code, 0, made.stderr);
    const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "sk-test-4242" };
    const args = ["llm", "ask", "-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "-c", "a.chat"];
    for (const runner of RUNNERS) {
      const r = await runRaw(runner, [...args, "-o", "a.chat", "q"], { env, cwd: bad });
      assert.equal(r.code, 2, `${runner.name}: ${r.stderr}`);
      assert.equal(
        r.stderr,
        `scout-ai: the working directory ("${dir.path}/bad\\xe9") is not valid UTF-8: scout-ai ` +
          "cannot name the files in it; rename it, or run scout-ai from another directory\n",
      );
      assert.ok(!existsSync(join(dir.path, "bad\uFFFD")), `${runner.name} made bad\uFFFD`);
      assert.equal((await entries(dir.path)).length, 1, runner.name); // bad\xe9 alone: no home
      assert.equal(await fileHex(`${bad}/a.chat`), "757365723a0a0a68690a"); // "user:\n\nhi\n"
    }
    assert.equal(srv.requests.length, 0);
  },
});

Deno.test({
  name: "a U+FFFD typed as such (valid UTF-8) in an argument or SCOUT_HOME is taken",
  sanitizeResources: false,
  fn: async () => {
    await buildBinary();
    await using dir = await tempDir();
    const chat = join(dir.path, "y\uFFFD.chat");
    await Deno.writeTextFile(chat, "user:\n\nhello\n");
    const home = join(dir.path, "H\uFFFD");
    for (const runner of RUNNERS) {
      // through sh too: the same path as the bad bytes, \0357\0277\0275 being EF BF BD
      const r = await runRaw(runner, ["chat", "parse", `${dir.path}/y\\0357\\0277\\0275.chat`], {
        env: { SCOUT_HOME: `${dir.path}/H\\0357\\0277\\0275` },
        cwd: dir.path,
      });
      assert.equal(r.code, 0, `${runner.name}: ${r.stderr}`);
      assert.match(r.stdout, /user\s+hello/);
      const set = await runRaw(runner, ["config", "set", "endpoint", "nano", "ask"], {
        env: { SCOUT_HOME: `${dir.path}/H\\0357\\0277\\0275` },
        cwd: dir.path,
      });
      assert.equal(set.code, 0, `${runner.name}: ${set.stderr}`);
      assert.match(await Deno.readTextFile(join(home, "etc", "config")), /^endpoint nano ask$/m);
    }
  },
});
