/**
 * `scout-ai llm ask` / `llm json` in-process (runMain) against the loopback
 * provider server: question sources, -o appends, --json, streaming, failures
 * that keep the chat so far, bad input.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "../../src/chat/parse.ts";
import { parseMeta } from "../../src/chat/meta.ts";
import { input, workflow } from "../../src/workflow/define.ts";
import { runMain } from "../support/cli.ts";
import { KEY, setup } from "./llm_ask_support.ts";

workflow("CliPantry", {
  tasks: {
    stock: {
      type: "string",
      inputs: { item: input.string({ required: true }) },
      run: ({ item }) => `${item}: 4`,
    },
  },
});

Deno.test("llm ask QUESTION prints the answer; words are joined; the key is sent as a bearer token", async () => {
  await using t = await setup();
  t.srv.script({ text: "Paris." });
  const r = await t.run(["ask", ...t.flags, "What", "is", "the", "capital?"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "Paris.\n");
  assert.equal(r.stderr, "");
  const body = t.srv.requests[0]!.body as { messages: unknown[] };
  assert.deepEqual(body.messages, [{ role: "user", content: "What is the capital?" }]);
  assert.equal(t.srv.requests[0]!.headers.authorization, `Bearer ${KEY}`);
});

Deno.test("question from stdin when piped; '...' in QUESTION is replaced by stdin", async () => {
  await using t = await setup();
  t.srv.script({ text: "a" }, { text: "b" });
  assert.equal(
    (await t.run(["ask", ...t.flags], { stdin: "system: be brief\n\nuser: hi\n" })).code,
    0,
  );
  assert.deepEqual((t.srv.requests[0]!.body as { messages: unknown[] }).messages, [
    { role: "system", content: "be brief" },
    { role: "user", content: "hi" },
  ]);
  assert.equal((await t.run(["ask", ...t.flags, "Summarise: ..."], { stdin: "the diff" })).code, 0);
  assert.deepEqual((t.srv.requests[1]!.body as { messages: unknown[] }).messages, [
    { role: "user", content: "Summarise: the diff" },
  ]);
});

Deno.test("'-' means stdin: QUESTION - is the question, -c - is the chat to continue", async () => {
  await using t = await setup();
  t.srv.script({ text: "a" }, { text: "b" });
  const q = await t.run(["ask", ...t.flags, "-"], { stdin: "What is 2+2?\n" });
  assert.equal(q.code, 0, q.stderr);
  assert.deepEqual((t.srv.requests[0]!.body as { messages: unknown[] }).messages, [
    { role: "user", content: "What is 2+2?" },
  ]);
  const c = await t.run(["ask", ...t.flags, "-c", "-", "And", "then?"], {
    stdin: "user: first\n\nassistant: one\n\nmodel: from-stdin-chat\n",
  });
  assert.equal(c.code, 0, c.stderr);
  assert.equal(c.stdout, "b\n");
  const second = t.srv.requests[1]!.body as { messages: unknown[]; model: string };
  assert.deepEqual(second.messages, [
    { role: "user", content: "first" },
    { role: "assistant", content: "one" },
    { role: "user", content: "And then?" },
  ]);
  // the stdin chat's options yield to the flags, as a -c file's do
  assert.equal(second.model, "test-model");
  const both = await t.run(["ask", ...t.flags, "-c", "-", "-"], { stdin: "user: x\n" });
  assert.equal(both.code, 2);
  assert.match(both.stderr, /Stdin can feed only one of -c -, QUESTION -/);
  assert.equal(t.srv.requests.length, 2);
});

Deno.test("-o appends the question and the new messages; -c continues the conversation", async () => {
  await using t = await setup();
  t.srv.script({ text: "Paris." }, { text: "About 2 million." });
  const out = join(t.dir.path, "session.chat");
  assert.equal(
    (await t.run(["ask", ...t.flags, "-o", "session.chat", "Capital of France?"])).code,
    0,
  );
  const kept = (text: string) => parse(text).filter((m) => m.content !== "");
  let chat = kept(await Deno.readTextFile(out));
  assert.deepEqual(chat.map((m) => m.role), ["user", "meta", "assistant"]);
  assert.equal(chat[0]!.content, "Capital of France?");
  assert.equal(parseMeta(String(chat[1]!.content)).pt, 10);
  const r = await t.run([
    "ask",
    ...t.flags,
    "-c",
    "session.chat",
    "-o",
    "session.chat",
    "And the population?",
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "About 2 million.\n");
  chat = kept(await Deno.readTextFile(out));
  assert.deepEqual(chat.map((m) => m.role), [
    "user",
    "meta",
    "assistant",
    "user",
    "meta",
    "assistant",
  ]);
  // the second request carried the first exchange, without the meta
  assert.deepEqual((t.srv.requests[1]!.body as { messages: unknown[] }).messages, [
    { role: "user", content: "Capital of France?" },
    { role: "assistant", content: "Paris." },
    { role: "user", content: "And the population?" },
  ]);
  // meta totals continue from the chat
  assert.equal(parseMeta(String(chat[4]!.content)).pt_c, 20);
  assert.ok(!(await Deno.readTextFile(out)).includes(KEY));
});

Deno.test("--json prints the documented shape", async () => {
  await using t = await setup();
  t.srv.script({ text: "42", usage: { pt: 7, ct: 3 } });
  const r = await t.run(["ask", ...t.flags, "--json", "Answer?"]);
  assert.equal(r.code, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.deepEqual(Object.keys(j), [
    "version",
    "answer",
    "cached",
    "endpoint",
    "backend",
    "model",
    "usage",
    "total_usage",
    "usage_warnings",
    "messages",
    "output",
  ]);
  assert.equal(j.version, 1);
  assert.equal(j.answer, "42");
  assert.deepEqual(j.usage, { pt: 7, ct: 3, tt: 10, cct: 0, cwt: 0, rt: 0 });
  assert.deepEqual(j.total_usage, j.usage); // nothing delegated
  assert.deepEqual(j.usage_warnings, []); // nothing left out
  assert.equal(j.backend, "openai");
  assert.equal(j.model, "test-model");
  assert.deepEqual(j.messages.map((m: { role: string }) => m.role), ["meta", "assistant"]);
  assert.equal(j.output, null);
});

Deno.test("--stream writes deltas as they come and ends with one newline; a TTY streams by default", async () => {
  await using t = await setup();
  t.srv.script({ text: ["Hel", "lo"] }, { text: ["Hel", "lo"] }, { text: "Hello" });
  const s = await t.run(["ask", ...t.flags, "--stream", "--no-cache", "hi"]);
  assert.equal(s.stdout, "Hello\n");
  assert.equal(t.srv.requests[0]!.stream, true);
  const tty = await t.run(["ask", ...t.flags, "--no-cache", "hi"], { tty: true });
  assert.equal(tty.stdout, "Hello\n");
  assert.equal(t.srv.requests[1]!.stream, true);
  const plain = await t.run(["ask", ...t.flags, "--no-cache", "hi"]);
  assert.equal(plain.stdout, "Hello\n");
  assert.equal(t.srv.requests[2]!.stream, false);
});

Deno.test("answers are cached: the same question again does not reach the provider; --no-cache does", async () => {
  await using t = await setup();
  t.srv.script({ text: "once" }, { text: "twice" });
  assert.equal((await t.run(["ask", ...t.flags, "q"])).stdout, "once\n");
  assert.equal((await t.run(["ask", ...t.flags, "q"])).stdout, "once\n");
  assert.equal(t.srv.requests.length, 1);
  assert.equal((await t.run(["ask", ...t.flags, "--no-cache", "q"])).stdout, "twice\n");
  assert.equal(t.srv.requests.length, 2);
});

Deno.test("a failure mid-loop exits 1 with one line and still appends the chat so far to -o", async () => {
  await using t = await setup();
  await Deno.writeTextFile(
    join(t.dir.path, "inv.chat"),
    "tool: CliPantry stock\n\nuser: how many eggs?\n",
  );
  t.srv.script(
    { toolCalls: [{ name: "stock", arguments: { item: "eggs" }, id: "call_1" }] },
    { status: 500, message: "Upstream down" },
  );
  const r = await t.run([
    "ask",
    ...t.flags,
    "-O",
    "max_retries=0",
    "-c",
    "inv.chat",
    "-o",
    "inv.chat",
    "--no-cache",
  ]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  // the url the request went to, and where the failure snapshot is (R83-8)
  const line = new RegExp(
    `^scout-ai: Provider "openai" answered HTTP 500: Upstream down \\(url ${t.srv.url}\\) ` +
      `\\(snapshot: (\\S+/tmp/ask/\\S+\\.chat)\\) \\(the chat so far was appended to "inv\\.chat"\\)\n$`,
  );
  assert.match(r.stderr, line);
  const snapshot = line.exec(r.stderr)![1]!;
  assert.ok(snapshot.startsWith(join(t.dir.path, "home")), snapshot);
  assert.match(await Deno.readTextFile(snapshot), /how many eggs\?/);
  const chat = parse(await Deno.readTextFile(join(t.dir.path, "inv.chat")));
  assert.deepEqual(chat.map((m) => m.role).slice(-3), [
    "meta",
    "function_call",
    "function_call_output",
  ]);
  assert.equal(JSON.parse(String(chat.at(-1)!.content)).content, "eggs: 4");
  // asking again continues from the saved tool output
  t.srv.script({ text: "You have 4 eggs." });
  const again = await t.run(["ask", ...t.flags, "-c", "inv.chat", "-o", "inv.chat", "--no-cache"]);
  assert.equal(again.stdout, "You have 4 eggs.\n");
  const msgs = (t.srv.requests.at(-1)!.body as { messages: Array<{ role: string }> }).messages;
  assert.deepEqual(msgs.map((m) => m.role), ["user", "assistant", "tool"]);
});

Deno.test("bad input: chat that fails to compile, unknown endpoint, missing key, nothing to ask", async () => {
  await using t = await setup();
  await Deno.writeTextFile(join(t.dir.path, "bad.chat"), "user: hi\n\nimport: missing.chat\n");
  const c = await t.run(["ask", ...t.flags, "-c", "bad.chat", "more"]);
  assert.equal(c.code, 1);
  assert.match(c.stderr, /^scout-ai: Import not found.*missing\.chat.*\(bad\.chat:3\)\n$/);
  const e = await t.run(["ask", "-e", "nosuch", "q"]);
  assert.equal(e.code, 2); // a flag's value: a usage error (R94-4)
  assert.match(e.stderr, /Endpoint not found "nosuch"/);
  const k = await runMain(["llm", "ask", "-b", "anthropic", "q"], {
    env: { SCOUT_HOME: join(t.dir.path, "h") },
    cwd: t.dir.path,
  });
  assert.equal(k.code, 1);
  assert.match(
    k.stderr,
    /No API key for backend "anthropic": set ANTHROPIC_KEY or ANTHROPIC_API_KEY/,
  );
  const u = await t.run(["ask", ...t.flags], { tty: true });
  assert.equal(u.code, 2);
  assert.match(u.stderr, /Nothing to ask/);
  const missing = await t.run(["ask", ...t.flags, "-c", "nope.chat", "-o", "o.chat", "q"]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /Chat file not found: "nope\.chat"/);
  assert.equal(t.srv.requests.length, 0);
});

Deno.test("llm ask --schema: schema file → structured output request; the reply is parsed and printed (R149-1: was llm json)", async () => {
  await using t = await setup();
  await Deno.writeTextFile(
    join(t.dir.path, "person.json"),
    JSON.stringify({
      name: "person",
      properties: { name: { type: "string" }, age: { type: "integer" } },
    }),
  );
  t.srv.script({ text: 'Here:\n```json\n{"name": "Ada", "age": 36}\n```' });
  const r = await t.run(["ask", ...t.flags, "--schema", "person.json", "Invent a person"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '{\n  "name": "Ada",\n  "age": 36\n}\n');
  const rf = (t.srv.requests[0]!.body as {
    response_format: { type: string; json_schema: { name: string } };
  }).response_format;
  assert.equal(rf.type, "json_schema");
  assert.equal(rf.json_schema.name, "person");
  t.srv.script({ text: "not json at all" });
  const bad = await t.run(["ask", ...t.flags, "--format", "json", "Invent another"]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /Cannot parse JSON answer/);
  assert.deepEqual((t.srv.requests[1]!.body as { response_format: unknown }).response_format, {
    type: "json_object",
  });
  // --json: the llm ask object plus the parsed reply as "value"
  t.srv.script({ text: '{"primes": [2, 3, 5]}' });
  const j = await t.run(["ask", ...t.flags, "--format", "json", "--json", "Three primes"]);
  assert.equal(j.code, 0, j.stderr);
  const doc = JSON.parse(j.stdout);
  assert.equal(doc.version, 1);
  assert.equal(doc.answer, '{"primes": [2, 3, 5]}');
  assert.deepEqual(doc.value, { primes: [2, 3, 5] });
  // an object whose only key is content is its content (D12)
  t.srv.script({ text: '{"content": ["a", "b"]}' });
  const c = await t.run(["ask", ...t.flags, "-s", "person.json", "Two letters"]);
  assert.equal(c.code, 0, c.stderr);
  assert.equal(c.stdout, '[\n  "a",\n  "b"\n]\n');
});

Deno.test("llm ask --schema: a missing schema file and a directory given as one are told apart", async () => {
  await using t = await setup();
  const missing = await t.run(["ask", ...t.flags, "-s", "nope.json", "q"]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^scout-ai: Schema file not found: "nope\.json"/);
  await Deno.mkdir(join(t.dir.path, "schemas"));
  const dir = await t.run(["ask", ...t.flags, "--schema", "schemas", "q"]);
  assert.equal(dir.code, 1);
  assert.match(dir.stderr, /^scout-ai: Is a directory, not a file: "schemas"/);
  assert.equal(t.srv.requests.length, 0);
});

Deno.test("llm ask --help teaches with examples", async () => {
  const r = await runMain(["llm", "ask", "--help"]);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /Examples[^\n]*:\n {2}scout-ai llm ask "What is the capital of France\?"/);
  assert.match(r.stdout, /--json prints \{"version":1/);
});

Deno.test("job-backed roles in the chat compile through the workflow engine (exec_task)", async () => {
  await using t = await setup();
  await Deno.mkdir(join(t.dir.path, "workflows", "Mini"), { recursive: true });
  await Deno.writeTextFile(
    join(t.dir.path, "workflows", "Mini", "workflow.ts"),
    `export default (api) => api.workflow("Mini", { tasks: { shout: { type: "string", inputs: { text: api.input.string({}) }, run: ({ text }) => String(text).toUpperCase() } } });\n`,
  );
  await Deno.writeTextFile(
    join(t.dir.path, "c.chat"),
    "exec_task: Mini shout text=hello\n\nuser: what did I say?\n",
  );
  t.srv.script({ text: "You said HELLO." });
  const r = await t.run(["ask", ...t.flags, "-c", "c.chat"]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual((t.srv.requests[0]!.body as { messages: unknown[] }).messages, [
    { role: "user", content: "HELLO" },
    { role: "user", content: "what did I say?" },
  ]);
});

Deno.test("-c FILE: the file's options yield to the flags; options written in QUESTION win", async () => {
  await using t = await setup();
  t.srv.script({ text: "one" }, { text: "two" }, { text: "three" });
  await Deno.writeTextFile(
    join(t.dir.path, "s.chat"),
    "model: file-model\noption: temperature 0.5\n\nuser:\n\nhello\n",
  );
  const base = ["-b", "openai", "-O", `url=${t.srv.url}`];
  assert.equal(
    (await t.run(["ask", ...base, "-c", "s.chat", "-m", "flag-model", "next?"])).code,
    0,
  );
  const first = t.srv.requests[0]!.body as {
    model: string;
    temperature?: unknown;
    messages: unknown[];
  };
  assert.equal(first.model, "flag-model");
  assert.equal(first.temperature, 0.5);
  assert.deepEqual(first.messages, [{ role: "user", content: "hello" }, {
    role: "user",
    content: "next?",
  }]);
  // Without the flag, the file's option applies.
  assert.equal((await t.run(["ask", ...base, "-c", "s.chat", "again?"])).code, 0);
  assert.equal((t.srv.requests[1]!.body as { model: string }).model, "file-model");
  // An option written in the question itself beats the flag.
  assert.equal(
    (await t.run([
      "ask",
      ...base,
      "-c",
      "s.chat",
      "-m",
      "flag-model",
      "model: q-model\n\nuser: last?",
    ])).code,
    0,
  );
  assert.equal((t.srv.requests[2]!.body as { model: string }).model, "q-model");
});

Deno.test("llm ask --format json: an answer that is no JSON fails; replayed from the cache it says how to ask again (R77-3)", async () => {
  await using t = await setup();
  t.srv.script({ text: "not json at all" }, { text: '{"primes": [2, 3, 5]}' });
  const first = await t.run(["ask", ...t.flags, "--format", "json", "List three primes"]);
  assert.equal(first.code, 1);
  assert.match(first.stderr, /Cannot parse JSON answer "not json at all"/);
  assert.doesNotMatch(first.stderr, /from the cache/);
  const again = await t.run(["ask", ...t.flags, "--format", "json", "List three primes"]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /the answer came from the cache: --no-cache asks again/);
  assert.equal(t.srv.requests.length, 1);
  const fresh = await t.run([
    "ask",
    ...t.flags,
    "--format",
    "json",
    "--no-cache",
    "List three primes",
  ]);
  assert.equal(fresh.code, 0, fresh.stderr);
  assert.deepEqual(JSON.parse(fresh.stdout), { primes: [2, 3, 5] });
});
