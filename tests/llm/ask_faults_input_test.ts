/**
 * Bad input to `ask` (unknown endpoint, backend, prompt strategy; no key;
 * uncompiled messages), replies without content, and no secret on disk.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseMeta } from "../../src/chat/meta.ts";
import { isScoutError } from "../../src/errors.ts";
import { ask, type AskOptions } from "../../src/llm/ask.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { tempDir } from "../support/cli.ts";
import { echoTool, KEY, opts, question, recorder } from "./ask_support.ts";

Deno.test("replies without choices/content/output are typed provider_response errors", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  const cases: Array<[string, unknown, RegExp]> = [
    ["openai", { id: "x", object: "chat.completion", choices: [] }, /no choices/],
    ["anthropic", { id: "x", type: "message" }, /without content/],
    ["ollama", { model: "m", done: true }, /without a message/],
    ["responses", { id: "x", object: "response" }, /without an output list|cannot be read/],
  ];
  for (const [backend, raw, re] of cases) {
    srv.script({ raw });
    await assert.rejects(() => ask(question, opts(srv, backend, home.path)), (e) => {
      assert.ok(isScoutError(e, "provider_response"), `${backend}: ${e}`);
      assert.match(e.message, re);
      return true;
    });
  }
});

Deno.test("bad input: unknown endpoint, unknown backend, missing key, unknown prompt strategy", async () => {
  await using home = await tempDir();
  const base: AskOptions = {
    env: { SCOUT_HOME: home.path },
    cwd: home.path,
    config: { entries: [] },
    persist: false,
  };
  await assert.rejects(
    () => ask(question, { ...base, endpoint: "nope" }),
    (e) => isScoutError(e, "endpoint_not_found"),
  );
  // a name from the environment or config says where it came from (§1.2)
  await assert.rejects(
    () => ask(question, { ...base, env: { SCOUT_HOME: home.path, LLM: "1" } }),
    (e) =>
      isScoutError(e, "endpoint_not_found") &&
      /^Endpoint not found "1" \(searched [^\n]*\) \(named by the environment variable LLM\)$/
        .test(e.message),
  );
  await assert.rejects(
    () =>
      ask(question, {
        ...base,
        config: { entries: [{ key: "endpoint", value: "gone", tokens: ["ask"] }] },
      }),
    (e) =>
      isScoutError(e, "endpoint_not_found") &&
      /^Endpoint not found "gone" \(searched [^\n]*\) \(named by the config key "endpoint"\)$/
        .test(e.message),
  );
  await assert.rejects(
    () => ask(question, { ...base, backend: "nope" }),
    (e) => isScoutError(e, "unknown_backend"),
  );
  await assert.rejects(() => ask(question, { ...base, backend: "anthropic" }), (e) => {
    assert.ok(isScoutError(e, "missing_key"));
    assert.match(e.message, /ANTHROPIC_KEY or ANTHROPIC_API_KEY/);
    return true;
  });
  // OpenWebUI has no default host: no url is a config error, not a request to api.openai.com
  await assert.rejects(
    () =>
      ask(question, {
        ...base,
        backend: "openwebui",
        fetch: () => Promise.reject(new Error("no request may be sent")),
      }),
    (e) => isScoutError(e, "config") && /set OPENWEBUI_URL/.test(e.message),
  );
  await assert.rejects(
    () => ask(question, { ...base, backend: "ollama", prompt_strategies: "nonesuch" }),
    (e) => isScoutError(e, "unknown_strategy"),
  );
  // a chat line names the endpoint: the chat wins over the call
  await assert.rejects(
    () =>
      ask([{ role: "endpoint", content: "from-chat" }, ...question], {
        ...base,
        endpoint: "from-call",
      }),
    (e) => isScoutError(e, "endpoint_not_found") && /from-chat/.test(e.message),
  );
  await assert.rejects(
    () => ask([{ role: "agent", content: "helper" }, ...question], { ...base, backend: "ollama" }),
    (e) => isScoutError(e, "not_available"),
  );
});

Deno.test("no secret on disk: a run with a key writes it nowhere under SCOUT_HOME (cache, snapshots)", async () => {
  await using home = await tempDir();
  await using cwd = await tempDir();
  await using srv = await startProviderServer();
  await Deno.mkdir(join(cwd.path, "etc", "AI"), { recursive: true });
  await Deno.writeTextFile(
    join(cwd.path, "etc", "AI", "loop.yaml"),
    `backend: openai\nurl: ${srv.url}\nmodel: m\nkey: ${KEY}\n`,
  );
  srv.script({ toolCalls: [{ name: "lookup", arguments: { q: "k" } }] }, { text: "done" }, {
    status: 500,
  }, { status: 500 });
  const common: AskOptions = {
    endpoint: "loop",
    cwd: cwd.path,
    env: { SCOUT_HOME: home.path, OPENAI_API_KEY: KEY },
    config: { entries: [] },
    tools: echoTool(),
    max_retries: "1",
    sleep: recorder().sleep,
  };
  const r = await ask(question, common);
  assert.equal(r.text, "done");
  await assert.rejects(() => ask([{ role: "user", content: "fails" }], common));
  assert.equal(srv.requests[0]!.headers.authorization, `Bearer ${KEY}`);
  let files = 0;
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(dir)) {
      const p = join(dir, e.name);
      if (e.isDirectory) await walk(p);
      else {
        files++;
        assert.ok(!(await Deno.readTextFile(p)).includes(KEY), `key found in ${p}`);
      }
    }
  };
  await walk(home.path);
  assert.ok(files >= 4, `expected cache and snapshot files, saw ${files}`);
  assert.ok(!JSON.stringify(r.messages).includes(KEY));
  assert.equal(parseMeta(String(r.messages[0]!.content)).key, undefined);
});

Deno.test("uncompiled messages are refused before any request (compile first)", async () => {
  await using home = await tempDir();
  await assert.rejects(
    () =>
      ask([{ role: "file", content: "notes.md" }, ...question], {
        env: { SCOUT_HOME: home.path },
        backend: "ollama",
      }),
    (e) => {
      assert.ok(isScoutError(e, "invalid_input"));
      assert.match(e.message, /Compile the chat before asking: found "file:"/);
      return true;
    },
  );
});
