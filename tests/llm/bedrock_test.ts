/**
 * The Bedrock backend against the loopback server speaking Bedrock Runtime:
 * SigV4 checked with AWS's documentation test key, InvokeModel with the
 * Anthropic body for Anthropic models, Converse for others, event-stream
 * streaming, the tool loop, usage → meta, credentials from env / options /
 * `~/.aws/credentials`, and no secret written anywhere.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseMeta } from "../../src/chat/meta.ts";
import type { Message } from "../../src/chat/types.ts";
import { isScoutError } from "../../src/errors.ts";
import { ask, type AskOptions } from "../../src/llm/ask.ts";
import { bedrockApi, bedrockUrl } from "../../src/llm/backends/bedrock.ts";
import { converseBody } from "../../src/llm/backends/bedrock_converse.ts";
import { decodeEventMessage, eventStreamMessages } from "../../src/llm/backends/aws_eventstream.ts";
import { newSession } from "../../src/llm/meta_record.ts";
import { toolRegistry } from "../../src/tools/registry.ts";
import { tempDir } from "../support/cli.ts";
import {
  checkSigV4,
  encodeEventMessage,
  sigV4Signature,
  TEST_AWS,
} from "../support/bedrock_protocol.ts";
import { type ProviderServer, startProviderServer } from "../support/provider_server.ts";

const CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const NOVA = "amazon.nova-pro-v1:0";
const ENV = {
  AWS_ACCESS_KEY_ID: TEST_AWS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: TEST_AWS.secretAccessKey,
  AWS_REGION: TEST_AWS.region,
};

function opts(
  srv: ProviderServer,
  model: string,
  home: string,
  extra: AskOptions = {},
): AskOptions {
  return {
    backend: "bedrock",
    url: srv.url,
    model,
    persist: false,
    env: { SCOUT_HOME: home, ...ENV },
    config: { entries: [] },
    session: newSession(),
    ...extra,
  };
}

const question: Message[] = [
  { role: "system", content: "be brief" },
  { role: "user", content: "What is the weather in London?" },
];

Deno.test("SigV4 verifier of the loopback server reproduces AWS's get-vanilla test vector", () => {
  const sig = sigV4Signature(
    {
      method: "GET",
      rawPath: "/",
      query: "",
      headers: { host: "example.amazonaws.com", "x-amz-date": "20150830T123600Z" },
      body: "",
    },
    TEST_AWS.secretAccessKey,
    "20150830/us-east-1/service/aws4_request",
    "host;x-amz-date",
  );
  assert.equal(sig, "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
  assert.match(
    checkSigV4({ method: "POST", rawPath: "/", query: "", headers: {}, body: "" })!,
    /Missing/,
  );
});

Deno.test("bedrockApi: Anthropic ids and inference profiles invoke, others converse; bedrock_api wins", () => {
  assert.equal(bedrockApi("anthropic.claude-3-haiku-20240307-v1:0"), "invoke");
  assert.equal(bedrockApi(CLAUDE), "invoke");
  assert.equal(
    bedrockApi("arn:aws:bedrock:us-east-1:1:inference-profile/us.anthropic.claude-x"),
    "invoke",
  );
  assert.equal(bedrockApi(NOVA), "converse");
  assert.equal(bedrockApi("meta.llama3-70b-instruct-v1:0"), "converse");
  assert.equal(bedrockApi(CLAUDE, "converse"), "converse");
  assert.throws(() => bedrockApi(NOVA, "chat"), /Invalid bedrock_api/);
  assert.equal(
    bedrockUrl("https://h/", "a/b:c", "invoke"),
    "https://h/model/a%2Fb%3Ac/invoke",
  );
});

Deno.test("event-stream decoder: CRCs checked, frames split across chunks", async () => {
  const m = encodeEventMessage({ ":event-type": "chunk" }, new TextEncoder().encode('{"a":1}'));
  assert.deepEqual(decodeEventMessage(m).headers, { ":event-type": "chunk" });
  const bad = m.slice();
  bad[bad.length - 6]! ^= 1;
  assert.throws(() => decodeEventMessage(bad), /CRC mismatch/);
  const two = new Uint8Array([...m, ...m]);
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(two.subarray(0, 5));
      c.enqueue(two.subarray(5, m.length + 3));
      c.enqueue(two.subarray(m.length + 3));
      c.close();
    },
  });
  const got = [];
  for await (const x of eventStreamMessages(body)) got.push(new TextDecoder().decode(x.payload));
  assert.deepEqual(got, ['{"a":1}', '{"a":1}']);
});

for (const [api, model] of [["invoke", CLAUDE], ["converse", NOVA]] as const) {
  Deno.test(`bedrock ${api}: signed request, body shape, usage → meta`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    srv.script({ text: "Cloudy, 15 °C.", usage: { pt: 12, ct: 8, cct: 4 } });
    const r = await ask(question, opts(srv, model, home.path, { temperature: "0.5" }));
    assert.equal(r.text, "Cloudy, 15 °C.");
    assert.equal(r.backend, "bedrock");
    const req = srv.requests[0]!;
    assert.equal(req.path, `/model/${encodeURIComponent(model)}/${api}`);
    assert.match(
      req.headers.authorization!,
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/bedrock\//,
    );
    if (api === "invoke") {
      assert.equal(req.body.anthropic_version, "bedrock-2023-05-31");
      assert.equal(req.body.system, "be brief");
      assert.equal(req.body.model, undefined);
      assert.equal(req.body.temperature, 0.5);
    } else {
      assert.deepEqual(req.body.system, [{ text: "be brief" }]);
      assert.deepEqual(req.body.inferenceConfig, { temperature: 0.5 });
      assert.deepEqual(req.body.messages, [
        { role: "user", content: [{ text: "What is the weather in London?" }] },
      ]);
    }
    // no credential reaches the body
    assert.doesNotMatch(JSON.stringify(req.body), /AKIDEXAMPLE|EXAMPLEKEY|us-east-1/);
    const meta = parseMeta(String(r.messages[0]!.content));
    assert.equal(meta.pt, 12);
    assert.equal(meta.ct, 8);
    assert.equal(meta.cct, 4);
  });

  Deno.test(`bedrock ${api}: streamed event frames add up; tool loop with tool results`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    const seen: unknown[] = [];
    const registry = toolRegistry({
      weather: [
        (_n, a) => {
          seen.push(a);
          return `15 and rain in ${a.city}`;
        },
        {
          name: "weather",
          description: "weather",
          parameters: { type: "object", properties: { city: { type: "string" } } },
        },
      ],
    });
    srv.script(
      { toolCalls: [{ name: "weather", arguments: { city: "London" }, id: "tu_1" }] },
      { text: ["Rain, ", "15 °C."], usage: { pt: 30, ct: 6 } },
    );
    const deltas: string[] = [];
    const r = await ask(question, {
      ...opts(srv, model, home.path),
      stream: true,
      tools: registry,
      onEvent: (e) => e.type === "text" && deltas.push(e.delta),
    });
    assert.equal(r.text, "Rain, 15 °C.");
    assert.deepEqual(deltas, ["Rain, ", "15 °C."]);
    assert.deepEqual(seen, [{ city: "London" }]);
    assert.ok(srv.requests.every((q) => q.stream && q.path.endsWith("-stream")));
    const second = srv.requests[1]!.body.messages as Array<{ content: unknown[] }>;
    const result = JSON.stringify(second.at(-1));
    assert.match(
      result,
      api === "invoke"
        ? /"tool_result".*15 and rain in London/
        : /"toolResult".*15 and rain in London/,
    );
    assert.equal(
      srv.requests[1]!.body[api === "invoke" ? "tools" : "toolConfig"] !== undefined,
      true,
    );
  });
}

Deno.test("bedrock: a wrong secret is refused by the server's SigV4 check (HTTP 403, not retried)", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ text: "never" });
  await assert.rejects(
    () =>
      ask(question, {
        ...opts(srv, NOVA, home.path),
        env: { SCOUT_HOME: home.path, ...ENV, AWS_SECRET_ACCESS_KEY: "wrong" },
      }),
    (e) => {
      assert.ok(isScoutError(e, "provider_http"));
      assert.match(e.message, /HTTP 403: The request signature we calculated does not match/);
      return true;
    },
  );
  assert.equal(srv.requests.length, 1);
});

Deno.test("bedrock: a stream exception becomes a retryable error that says it came in the stream; the retry succeeds", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script(
    { text: "partial", exception: { type: "throttlingException", message: "Too many requests" } },
    { text: "whole answer" },
  );
  const warnings: string[] = [];
  const retried: unknown[] = [];
  const r = await ask(question, {
    ...opts(srv, NOVA, home.path),
    stream: true,
    warn: (m) => warnings.push(m),
    onEvent: (e) => e.type === "retry" && retried.push(e.error),
  });
  assert.equal(r.text, "whole answer");
  assert.equal(srv.requests.length, 2);
  // the response was HTTP 200: the error came in the stream, typed as the 429 it stands for
  const e = retried[0];
  assert.ok(isScoutError(e, "provider_http"), String(e));
  assert.equal(e.status, 429);
  assert.match(
    e.message,
    /^Provider "bedrock" reported throttlingException in its stream: Too many requests/,
  );
  assert.doesNotMatch(e.message, /answered HTTP/);
});

Deno.test("bedrock credentials: a profile in ~/.aws/credentials, region from ~/.aws/config; missing ones name what to set", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  const aws = join(home.path, "awshome", ".aws");
  await Deno.mkdir(aws, { recursive: true });
  await Deno.writeTextFile(
    join(aws, "credentials"),
    `[default]\naws_access_key_id = WRONG\naws_secret_access_key = WRONG\n\n[lab]\naws_access_key_id = ${TEST_AWS.accessKeyId}\naws_secret_access_key = ${TEST_AWS.secretAccessKey}\n`,
  );
  await Deno.writeTextFile(join(aws, "config"), `[profile lab]\nregion = us-east-1\n`);
  srv.script({ text: "ok" });
  const env = { SCOUT_HOME: home.path, HOME: join(home.path, "awshome"), AWS_PROFILE: "lab" };
  const r = await ask(question, { ...opts(srv, NOVA, home.path), env });
  assert.equal(r.text, "ok");
  await assert.rejects(
    () =>
      ask(question, {
        ...opts(srv, NOVA, home.path),
        env: { SCOUT_HOME: home.path, HOME: "/nonexistent" },
      }),
    /No AWS credentials for backend "bedrock": set AWS_ACCESS_KEY_ID/,
  );
  await assert.rejects(
    () =>
      ask(question, {
        ...opts(srv, NOVA, home.path),
        env: { SCOUT_HOME: home.path, HOME: "/nonexistent" },
        access_key: TEST_AWS.accessKeyId,
        secret_key: TEST_AWS.secretAccessKey,
      }),
    /No AWS region/,
  );
  assert.equal(srv.requests.length, 1);
});

Deno.test("bedrock credentials: the message names the shared file read; an unreadable one is an io error, not an empty one", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  const creds = join(home.path, "team-creds");
  await Deno.writeTextFile(creds, "[other]\naws_access_key_id = X\n");
  const base = { ...opts(srv, NOVA, home.path) };
  const env = (file: string) => ({ SCOUT_HOME: home.path, AWS_SHARED_CREDENTIALS_FILE: file });
  await assert.rejects(
    () => ask(question, { ...base, env: env(creds) }),
    (e) => isScoutError(e, "missing_key") && e.message.endsWith(`profile "default" in "${creds}"`),
  );
  const dir = join(home.path, "credsdir");
  await Deno.mkdir(dir);
  await assert.rejects(
    () => ask(question, { ...base, env: env(dir) }),
    (e) => isScoutError(e, "io") && e.file === dir && /Is a directory/.test(e.message),
  );
  assert.equal(srv.requests.length, 0);
});

Deno.test("bedrock: credentials given as options are used and written nowhere (chat, cache)", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ text: "ok" });
  const r = await ask(question, {
    ...opts(srv, NOVA, home.path),
    persist: true,
    env: { SCOUT_HOME: home.path },
    access_key: TEST_AWS.accessKeyId,
    secret_key: TEST_AWS.secretAccessKey,
    region: "us-east-1",
  });
  assert.equal(r.text, "ok");
  assert.doesNotMatch(JSON.stringify(r.messages), /EXAMPLEKEY/);
  for await (const f of Deno.readDir(join(home.path, "var", "cache", "ask"))) {
    if (!f.isFile) continue; // .holders: the locks' holder files (pid@host)
    const text = await Deno.readTextFile(join(home.path, "var", "cache", "ask", f.name));
    assert.doesNotMatch(text, /EXAMPLEKEY|AKIDEXAMPLE/);
  }
});

Deno.test("bedrock converse body: images as bytes, tool pairs as toolUse/toolResult, image URLs refused", async () => {
  await using dir = await tempDir();
  const png = join(dir.path, "dot.png");
  await Deno.writeFile(png, Uint8Array.from(atob("iVBORw0KGgo="), (c) => c.charCodeAt(0)));
  const body = converseBody({
    messages: [
      { role: "user", content: "look" },
      { role: "image", content: png },
      { role: "function_call", content: '{"name":"f","arguments":{"x":1},"id":"c1"}' },
      { role: "function_call_output", content: '{"id":"c1","content":"done"}' },
    ],
    tools: [],
    params: { max_tokens: 100, stop: "END", seed: 7 },
    stream: false,
  });
  const msgs = body.messages as Array<{ role: string; content: Record<string, unknown>[] }>;
  assert.deepEqual(msgs.map((m) => m.role), ["user", "assistant", "user"]);
  assert.deepEqual(msgs[0]!.content[1], {
    image: { format: "png", source: { bytes: "iVBORw0KGgo=" } },
  });
  assert.deepEqual(msgs[1]!.content[0], {
    toolUse: { toolUseId: "c1", name: "f", input: { x: 1 } },
  });
  assert.deepEqual(msgs[2]!.content[0], {
    toolResult: { toolUseId: "c1", content: [{ text: "done" }] },
  });
  assert.deepEqual(body.inferenceConfig, { maxTokens: 100, stopSequences: ["END"] });
  assert.deepEqual(body.additionalModelRequestFields, { seed: 7 });
  assert.throws(
    () =>
      converseBody({
        messages: [{ role: "image", content: "https://example.org/a.png" }],
        tools: [],
        params: {},
        stream: false,
      }),
    /not URLs/,
  );
});

Deno.test("bedrock converse body: options spelled like Object.prototype members are model fields (R112-5)", () => {
  const body = converseBody({
    messages: [{ role: "user", content: "hi" }],
    tools: [],
    params: { toString: "a", constructor: "b", temperature: 0.5 },
    stream: false,
  });
  // before: `inferenceConfig` keyed by the members' source text (`function toString() {…}`)
  assert.deepEqual(body.inferenceConfig, { temperature: 0.5 });
  assert.deepEqual(body.additionalModelRequestFields, { toString: "a", constructor: "b" });
  // a chat's image whose media type is spelled like a member has no format: refused, named
  // (before: sent with the function as its format, which JSON dropped)
  const messages = [{ role: "image", content: "data:constructor;base64,AAAA" }];
  const req = { messages, tools: [], params: {}, stream: false };
  assert.throws(() => converseBody(req), /\(png, jpeg, gif, webp, pdf\), not constructor/);
});

Deno.test("bedrock: a 200 page answering a streamed request fails at once, quoting its text", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({
    page: { contentType: "text/html", body: "<html><body><p>Sign in</p></body></html>" },
  });
  await assert.rejects(
    () => ask(question, { ...opts(srv, NOVA, home.path), stream: true }),
    (e) => {
      assert.ok(isScoutError(e, "provider_response"), String(e));
      assert.match(
        e.message,
        /^Provider "bedrock" answered a streamed request with HTTP 200 text\/html, not an AWS event stream: Sign in/,
      );
      return true;
    },
  );
  assert.equal(srv.requests.length, 1);
});
