/**
 * `llm json FILE` converts messages between JSON and chat text, as the Ruby
 * scout-ai's does (agents.md §5.4, R149-1): JSON in (default, `--json`) →
 * chat text, `--chat` in → a JSON array; `-o` writes instead of printing; the
 * output is `chat print`'s / `chat parse --json`'s. Used the old scout-ai way
 * (a question, `-s`, `-e` …) it asks nothing: exit 2 and a pointer to
 * `llm ask --schema` / `--format json`.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

const MESSAGES = [
  { role: "system", content: "be brief" },
  { role: "user", content: "hi\nthere" },
  { role: "assistant", content: "hello" },
];

async function setup() {
  const dir = await tempDir();
  const srv = await startProviderServer({ fallback: () => ({ text: "asked!" }) });
  // a default endpoint that would answer: nothing must reach it
  const env = {
    SCOUT_HOME: join(dir.path, "home"),
    OPENAI_API_KEY: "sk-x",
    ASK_BACKEND: "openai",
    OPENAI_URL: srv.url,
    OPENAI_MODEL: "m",
  };
  writeFileSync(join(dir.path, "m.json"), JSON.stringify(MESSAGES));
  return {
    dir,
    srv,
    path: (f: string) => join(dir.path, f),
    run: (args: string[], stdin?: string) =>
      runMain(args, { env, cwd: dir.path, ...(stdin !== undefined ? { stdin } : {}) }),
    [Symbol.asyncDispose]: async () => {
      await srv.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

Deno.test("llm json FILE: JSON messages → chat text, --chat FILE → JSON, as chat print / chat parse --json (R149-1)", async () => {
  await using t = await setup();
  const chat = await t.run(["llm", "json", "m.json"]);
  assert.equal(chat.code, 0, chat.stderr);
  assert.equal(chat.stdout, (await t.run(["chat", "print", "m.json"])).stdout);
  assert.match(chat.stdout, /^\n?system:\s+be brief\s+user:\s+hi\nthere\s+assistant:\s+hello\n$/);
  assert.equal((await t.run(["llm", "json", "--json", "m.json"])).stdout, chat.stdout);
  writeFileSync(t.path("c.chat"), chat.stdout);
  const back = await t.run(["llm", "json", "--chat", "c.chat"]);
  assert.equal(back.code, 0, back.stderr);
  assert.equal(back.stdout, (await t.run(["chat", "parse", "--json", "c.chat"])).stdout);
  assert.deepEqual(JSON.parse(back.stdout).filter((m: { content: string }) => m.content), MESSAGES);
  // - reads stdin; -c is --chat (Ruby's letter)
  const piped = await t.run(["llm", "json", "-c", "-"], chat.stdout);
  assert.equal(piped.code, 0, piped.stderr);
  assert.equal(piped.stdout, back.stdout);
  assert.equal(t.srv.requests.length, 0);
});

Deno.test("llm json -o OUT writes the result instead of printing it (R149-1)", async () => {
  await using t = await setup();
  const printed = (await t.run(["llm", "json", "m.json"])).stdout;
  const r = await t.run(["llm", "json", "m.json", "-o", "out/s.chat"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "");
  assert.equal(readFileSync(t.path("out/s.chat"), "utf8"), printed);
  const j = await t.run(["llm", "json", "--chat", "out/s.chat", "--output", "s.json"]);
  assert.equal(j.code, 0, j.stderr);
  assert.equal(j.stdout, "");
  assert.equal(
    readFileSync(t.path("s.json"), "utf8"),
    (await t.run(["llm", "json", "-c", "out/s.chat"])).stdout,
  );
});

Deno.test("llm json: usage errors exit 2; a bad JSON file names its line (R149-1)", async () => {
  await using t = await setup();
  const both = await t.run(["llm", "json", "--chat", "--json", "m.json"]);
  assert.equal(both.code, 2);
  assert.match(both.stderr, /^scout-ai: Give --chat or --json, not both/);
  const none = await t.run(["llm", "json"]);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /^scout-ai: Missing FILE argument for llm json/);
  writeFileSync(t.path("bad.json"), '[{"role":"user","content":"a"},\n {"role": }]');
  const bad = await t.run(["llm", "json", "bad.json", "-o", "x.chat"]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /^scout-ai: Invalid JSON in bad\.json: .*\(bad\.json:2\)\n$/);
  assert.equal(existsSync(t.path("x.chat")), false);
  const obj = await t.run(["llm", "json", "--chat", "bad.json", "-o", "-"]);
  assert.equal(obj.code, 2);
  assert.match(obj.stderr, /^scout-ai: Cannot write -o "-"/);
});

Deno.test("llm json used the old scout-ai way asks nothing: exit 2 and a pointer to llm ask --schema / --format json (R149-1)", async () => {
  await using t = await setup();
  writeFileSync(t.path("s.json"), '{"type":"object"}');
  const pointer =
    /^scout-ai: [^\n]*structured output is now "llm ask --schema FILE" or "llm ask --format json"\)?\n\(run with --help for usage\)\n$/;
  for (
    const args of [
      ["-s", "s.json", "List three primes"],
      ["--schema", "s.json", "m.json"],
      ["-e", "nano", "m.json"],
      ["-m", "gpt", "m.json"],
      ["-b", "openai", "m.json"],
      ["List three primes"],
      ["List", "three", "primes"],
    ]
  ) {
    const r = await t.run(["llm", "json", ...args]);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, pointer, args.join(" "));
  }
  assert.match(
    (await t.run(["llm", "json", "nope.json"])).stderr,
    /^scout-ai: File not found: "nope\.json" \(llm json converts a file;/,
  );
  assert.equal(t.srv.requests.length, 0);
});

Deno.test("llm json --help teaches the conversion with examples and says where structured output went", async () => {
  const r = await runMain(["llm", "json", "--help"]);
  assert.equal(r.code, 0, r.stderr);
  const text = r.stdout.replace(/\s+/g, " ");
  assert.match(text, /-c, --chat .*-j, --json .*-o, --output <file>/);
  assert.match(text, /llm ask --schema FILE, llm ask --format json/);
  assert.match(text, /scout-ai llm json --chat fixtures\/chats\/basic\.chat -o basic\.json/);
});
