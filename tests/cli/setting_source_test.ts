/**
 * An error about a setting's value names where the value came from (R128-1):
 * the config file and line (`config set KEY VALUE ask`), the environment
 * variable, a chat's `option:` line, an endpoint file's key — as `config
 * list` shows each entry's source. An endpoint not found says where it
 * looked, the near names, and the file that would make one (R128-4). The
 * real CLI, in a subprocess, with a temporary SCOUT_HOME.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runScout, tempDir } from "../support/cli.ts";

/** A home with the endpoint `nano`, its config file holding `config` (a comment first). */
function home(dir: string, name: string, config?: string) {
  const root = join(dir, name);
  const scout = join(root, "scout");
  mkdirSync(join(scout, "etc", "AI"), { recursive: true });
  writeFileSync(join(scout, "etc", "AI", "nano.yaml"), "backend: openai\nmodel: gpt-5-nano\n");
  const file = join(scout, "etc", "config");
  if (config !== undefined) writeFileSync(file, `# mine\n${config}\n`);
  const env = { SCOUT_HOME: scout, HOME: root, OPENAI_API_KEY: "sk-x", NO_COLOR: "1" };
  return { root, scout, file, env };
}

const ask = (h: ReturnType<typeof home>, args: string[], env: Record<string, string> = {}) =>
  runScout(["llm", "ask", ...args], { env: { ...h.env, ...env }, cwd: h.root });

Deno.test("a backend, endpoint or limit read from the config names the config's file and line (R128-1)", async () => {
  await using d = await tempDir();
  const backend = home(d.path, "b", "backend opnai ask");
  const endpoint = home(d.path, "e", "endpoint nanoo ask");
  const rounds = home(d.path, "r", "max_tool_rounds abc ask");
  const timeout = home(d.path, "t", "request_timeout soon ask");
  const [b, e, r, t] = await Promise.all([
    ask(backend, ["hi"]),
    ask(endpoint, ["hi"]),
    ask(rounds, ["hi"]),
    ask(timeout, ["hi"]),
  ]);
  assert.equal(b.code, 1, b.stderr);
  assert.match(b.stderr, /^scout-ai: Unknown backend: "opnai" \(known: [^\n]*\) \(/);
  assert.ok(b.stderr.endsWith(` (${backend.file}:2)\n`), b.stderr);
  assert.equal(e.code, 1, e.stderr);
  assert.match(e.stderr, /^scout-ai: Endpoint not found "nanoo"; did you mean "nano"\?/);
  assert.ok(
    e.stderr.endsWith(` (named by the config key "endpoint") (${endpoint.file}:2)\n`),
    e.stderr,
  );
  assert.equal(r.code, 1, r.stderr);
  assert.equal(
    r.stderr,
    `scout-ai: Invalid max_tool_rounds: "abc" (expected a positive integer) (${rounds.file}:2)\n`,
  );
  assert.equal(t.code, 1, t.stderr);
  assert.equal(
    t.stderr,
    `scout-ai: Invalid request_timeout: "soon" (expected seconds > 0) (${timeout.file}:2)\n`,
  );
});

Deno.test("a backend or limit read from the environment names its variable, an env:VAR entry the config line too (R128-1)", async () => {
  await using d = await tempDir();
  const plain = home(d.path, "p");
  const viaEntry = home(d.path, "v", "max_tool_rounds env:MY_ROUNDS ask");
  const [b, r, v] = await Promise.all([
    ask(plain, ["hi"], { ASK_BACKEND: "opnai" }),
    ask(plain, ["hi"], { SCOUT_MAX_TOOL_ROUNDS: "0" }),
    ask(viaEntry, ["hi"], { MY_ROUNDS: "-3" }),
  ]);
  assert.equal(b.code, 1, b.stderr);
  assert.match(
    b.stderr,
    /^scout-ai: Unknown backend: "opnai" \(known: [^\n]*\) \(named by the environment variable ASK_BACKEND\)\n$/,
  );
  assert.equal(r.code, 1, r.stderr);
  assert.equal(
    r.stderr,
    'scout-ai: Invalid max_tool_rounds: "0" (expected a positive integer) ' +
      "(set by the environment variable SCOUT_MAX_TOOL_ROUNDS)\n",
  );
  assert.equal(v.code, 1, v.stderr);
  assert.equal(
    v.stderr,
    'scout-ai: Invalid max_tool_rounds: "-3" (expected a positive integer) ' +
      `(set by the environment variable MY_ROUNDS) (${viaEntry.file}:2)\n`,
  );
});

Deno.test("a limit set by a chat's option: line or an endpoint file's key names that line (R128-1)", async () => {
  await using d = await tempDir();
  const h = home(d.path, "h");
  writeFileSync(join(h.root, "o.chat"), "user: hello\n\noption: max_tool_rounds abc\n");
  const ep = join(h.scout, "etc", "AI", "capped.yaml");
  writeFileSync(ep, "backend: openai\nmodel: m\nmax_tool_rounds: abc\n");
  const [o, f, flag] = await Promise.all([
    ask(h, ["-c", "o.chat", "again"]),
    ask(h, ["-e", "capped", "hi"]),
    // a flag over the file's value is not the file's
    ask(h, ["-e", "capped", "-O", "max_tool_rounds=zz", "hi"]),
  ]);
  assert.equal(o.code, 1, o.stderr);
  assert.ok(o.stderr.endsWith(`(expected a positive integer) (o.chat:3)\n`), o.stderr);
  assert.equal(f.code, 1, f.stderr);
  assert.ok(f.stderr.endsWith(`(expected a positive integer) (${ep}:3)\n`), f.stderr);
  assert.match(
    flag.stderr,
    /^scout-ai: Invalid max_tool_rounds: "zz" \(expected a positive integer\)\n/,
  );
});

Deno.test("llm ask -e with a misspelt endpoint says where it looked, the near name, and how to make one (R128-4)", async () => {
  await using d = await tempDir();
  const h = home(d.path, "h");
  const r = await ask(h, ["-e", "nnao", "hi"]);
  assert.equal(r.code, 2, r.stderr);
  const dirs = [
    join(h.root, "etc", "AI"),
    join(h.scout, "etc", "AI"),
    "/usr/local/etc/scout/AI",
    "/etc/scout/AI",
  ].join(", ");
  const make = join(h.scout, "etc", "AI", "nnao.yaml");
  assert.equal(
    r.stderr.split("\n")[0],
    `scout-ai: Endpoint not found "nnao"; did you mean "nano"? (searched ${dirs}; make one as ${make})`,
  );
});

Deno.test("a prompt-strategy setting set by a chat's option: line names that line; one given by a flag does not", async () => {
  await using d = await tempDir();
  const h = home(d.path, "h");
  writeFileSync(
    join(h.root, "s.chat"),
    "option: prompt_strategies shorten_tools\noption: max_tool_calls abc\n\nuser: hello\n",
  );
  const [line, flag] = await Promise.all([
    ask(h, ["-c", "s.chat", "again"]),
    ask(h, ["-O", "prompt_strategies=shorten_tools", "-O", "max_tool_calls=zz", "hi"]),
  ]);
  assert.equal(line.code, 1, line.stderr);
  assert.equal(
    line.stderr,
    `scout-ai: Invalid prompt strategy setting option "max_tool_calls": "abc" is not an integer (s.chat:2)\n`,
  );
  assert.equal(flag.code, 1, flag.stderr);
  assert.equal(
    flag.stderr,
    `scout-ai: Invalid prompt strategy setting option "max_tool_calls": "zz" is not an integer\n`,
  );
});

Deno.test("an unknown prompt strategy names the chat line or the agent's start_chat line that gave it (R140-2)", async () => {
  await using d = await tempDir();
  const h = home(d.path, "h");
  writeFileSync(
    join(h.root, "bad1.chat"),
    "user:\n\nhello\n\noption: prompt_strategies shorten_tools, shorten_tool\n",
  );
  const start = join(h.scout, "Agent", "BadAg", "start_chat");
  mkdirSync(join(h.scout, "Agent", "BadAg"), { recursive: true });
  writeFileSync(start, "option: prompt_strategies nope\n\nsystem:\n\nyou\n");
  const [line, agent, flag] = await Promise.all([
    ask(h, ["-b", "openai", "-c", "bad1.chat", "q"]),
    runScout(["agent", "ask", "-b", "openai", "BadAg", "q"], { env: h.env, cwd: h.root }),
    ask(h, ["-b", "openai", "-O", "prompt_strategies=nope", "q"]),
  ]);
  const known = "(known: none, shorten_tools, shorten_tools_epoch)";
  assert.equal(line.code, 1, line.stderr);
  assert.equal(
    line.stderr,
    `scout-ai: Unknown prompt strategy "shorten_tool" ${known} (bad1.chat:5)\n`,
  );
  assert.equal(agent.code, 1, agent.stderr);
  assert.equal(agent.stderr, `scout-ai: Unknown prompt strategy "nope" ${known} (${start}:1)\n`);
  assert.equal(flag.code, 1, flag.stderr);
  assert.equal(flag.stderr, `scout-ai: Unknown prompt strategy "nope" ${known}\n`);
});
