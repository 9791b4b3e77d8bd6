/**
 * What is a secret (`src/util/secrets.ts`, R83-1): credential names in every
 * spelling the backends, configs and query strings use, and urls with their
 * passwords and secret parameters masked, alone or inside a message.
 */
import assert from "node:assert/strict";
import {
  headerSecrets,
  isSecretName,
  looksLikeCredential,
  looksLikeKey,
  redactKeysIn,
  redactSecretsIn,
  redactSecretsInError,
  redactUrl,
  redactUrlsIn,
} from "../../src/util/secrets.ts";

Deno.test("isSecretName: every credential option the backends take, in any spelling", () => {
  for (
    const k of [
      // what src/llm reads: key, Bedrock's access_key / secret_key / session_token
      "key",
      "access_key",
      "secret_key",
      "session_token",
      // other spellings and services
      "KEY",
      "api_key",
      "apikey",
      "apiKey",
      "X-Api-Key",
      "openai_key",
      "SESSION_TOKEN",
      "sessionToken",
      "aws_session_token",
      "aws_secret_access_key",
      "aws_access_key_id",
      "access_key_id",
      "accessKeyId",
      "access_token",
      "refresh_token",
      "token",
      "secret",
      "client_secret",
      "secret_value",
      "password",
      "db_password",
      "passwd",
      "Authorization",
      "proxy-authorization",
      "auth",
      "sig",
      "signature",
      "X-Amz-Signature",
      "X-Amz-Security-Token",
      "X-Amz-Credential",
      "credentials",
      "cookie",
      "bearer", // R146-5
      "SCOUT_BEARER",
      "bearer_token",
    ]
  ) assert.ok(isSecretName(k), k);
});

Deno.test("isSecretName: names that only look like one stay visible", () => {
  for (
    const k of [
      "endpoint",
      "url",
      "model",
      "keyboard",
      "keys_used",
      "max_tokens",
      "max_completion_tokens",
      "budget_tokens",
      "tokens",
      "region",
      "aws_profile",
      "prompt_cache_key",
      "eos_token",
      "monkey", // a word ending in "key" is no key
      "turkey_count",
      "signature_version_note",
      "",
    ]
  ) assert.ok(!isSecretName(k), k);
});

Deno.test("looksLikeKey: sk-, xai-, gsk_, hf_ values", () => {
  for (const v of ["sk-abc", "sk_live_x", "xai-1", "gsk_2", "hf_3"]) assert.ok(looksLikeKey(v), v);
  for (const v of ["skip", "model", 42, null]) assert.ok(!looksLikeKey(v), String(v));
});

Deno.test("looksLikeCredential: keys, urls with credentials, passwords on a command line (R146-5)", () => {
  for (
    const v of [
      "sk-abc",
      "curl -H 'Authorization: Bearer abc123' http://h",
      "run --key sk-proj-1",
      "http://u:pw@h/q",
      "https://tok@h/q",
      "http://h/v1?api_key=k",
      "sshpass -p pw ssh",
      "sshpass -ppw ssh",
      "/usr/bin/sshpass -v -P assword -p pw ssh -p 2222 host",
      "tool --password pw",
      "tool --password=pw",
      "tool --api-key k --verbose",
      "cli --token=t",
    ]
  ) assert.ok(looksLikeCredential(v), v);
  for (
    const v of [
      "ssh",
      "ssh -p 2222 -i ~/.ssh/id_ed25519",
      "sshpass -e ssh -p 2222",
      "sshpass -f /home/u/.pw ssh -p 22",
      "user@gpu-node",
      "gpu-node:/scratch/queue",
      "http://h:8080/v1?model=m",
      "tool --password",
      "tool --max-tokens 10",
      "3",
      "",
    ]
  ) assert.ok(!looksLikeCredential(v), v);
});

Deno.test("redactKeysIn: key-like tokens among words, not words that only hold sk-", () => {
  assert.equal(redactKeysIn("use sk-proj-abc123 now"), "use *** now");
  assert.equal(redactKeysIn("Bearer hf_x1,xai-2;gsk_3"), "Bearer ***,***;***");
  assert.equal(redactKeysIn("task-list ask_me my_hf_x skip"), "task-list ask_me my_hf_x skip");
});

Deno.test("redactUrl: the userinfo password and secret parameters are masked, the rest kept", () => {
  const cases: [string, string][] = [
    ["http://bob:pw@proxy:8080/v1", "http://bob:***@proxy:8080/v1"],
    ["https://ghp_token123@github.com/o/r", "https://***@github.com/o/r"],
    ["http://h/v1?key=abc", "http://h/v1?key=***"],
    ["http://h/v1?model=m&api_key=abc&x=1", "http://h/v1?model=m&api_key=***&x=1"],
    ["http://h/cb#access_token=abc&state=s", "http://h/cb#access_token=***&state=s"],
    [
      "https://b.s3.amazonaws.com/o?X-Amz-Credential=AKID%2F2024&X-Amz-Signature=ff00&X-Amz-Date=1",
      "https://b.s3.amazonaws.com/o?X-Amz-Credential=***&X-Amz-Signature=***&X-Amz-Date=1",
    ],
    [
      "https://x.blob.core.windows.net/c?sv=1&sig=abc%3D",
      "https://x.blob.core.windows.net/c?sv=1&sig=***",
    ],
    ["http://u:p@h:1/v1?token=t", "http://u:***@h:1/v1?token=***"],
    // nothing secret: unchanged
    ["http://127.0.0.1:11434", "http://127.0.0.1:11434"],
    ["https://api.openai.com/v1?api-version=2024", "https://api.openai.com/v1?api-version=2024"],
    ["not a url", "not a url"],
    ["file:///tmp/a@b/c.ts", "file:///tmp/a@b/c.ts"],
  ];
  for (const [url, want] of cases) assert.equal(redactUrl(url), want, url);
});

Deno.test("redactUrlsIn: urls inside messages and stacks", () => {
  assert.equal(
    redactUrlsIn(
      "error sending request for url (http://127.0.0.1:9/v1?key=QSECRET/api/chat): refused",
    ),
    // a value runs to &, ;, #, ) or ]: a key with a "/" in it is masked whole
    "error sending request for url (http://127.0.0.1:9/v1?key=***): refused",
  );
  assert.equal(
    redactUrlsIn('Cannot reach "http://bob:pw@h/v1" and http://h2/?sig=1'),
    'Cannot reach "http://bob:***@h/v1" and http://h2/?sig=***',
  );
  const stack = "Error: x\n    at f (file:///tmp/wt/src/a.ts:1:2)";
  assert.equal(redactUrlsIn(stack), stack);
  assert.equal(redactUrlsIn("no url here"), "no url here");
});

Deno.test("redactUrlsIn: punctuation after a url in prose is kept, not taken for its value", () => {
  assert.equal(
    redactUrlsIn("Cannot reach http://h:8/v1?api_key=AK: refused. See http://u:p@h/x."),
    "Cannot reach http://h:8/v1?api_key=***: refused. See http://u:***@h/x.",
  );
});

Deno.test("redactSecretsIn (R146): the keys a request sent, wherever an echo puts them", () => {
  const key = "CanaryKeyWithoutDigits";
  assert.equal(
    redactSecretsIn(`you sent ${key}; again:${key}.`, [key, undefined]),
    "you sent ***; again:***.",
  );
  // a key too short to be told from a word is not masked by value ("EMPTY", "k")
  assert.equal(redactSecretsIn("EMPTY key k", ["EMPTY", "k"]), "EMPTY key k");
  // the longest first: a key holding another is masked whole
  assert.equal(redactSecretsIn("abcdefgh-12345678", ["abcdefgh", "abcdefgh-12345678"]), "***");
  // urls too, as redactUrlsIn
  assert.equal(redactSecretsIn("at http://h/v1?key=abc"), "at http://h/v1?key=***");
});

Deno.test("redactSecretsIn: a key's head an excerpt cut short before its … is masked", () => {
  const key = "CanaryKeyWithoutDigits";
  const cut = (n: number) => `you sent ${key.slice(0, n)}…`;
  assert.equal(redactSecretsIn(cut(12), [key]), "you sent ***…");
  assert.equal(redactSecretsIn(cut(4), [key]), "you sent ***…");
  // fewer than 4 characters, or text that is no key's start, stays
  assert.equal(redactSecretsIn(cut(3), [key]), cut(3));
  assert.equal(redactSecretsIn("see the docs…", [key]), "see the docs…");
  assert.equal(redactSecretsIn(cut(12), []), cut(12));
  // every … looked at; a whole key elsewhere masked as before
  assert.equal(
    redactSecretsIn(`${key} and Canary… and CanaryKey… end…`, [key]),
    "*** and ***… and ***… end…",
  );
});

Deno.test("redactSecretsIn (R146): header-shaped credentials an error body echoes", () => {
  const headers = JSON.stringify({
    "content-type": "application/json",
    authorization: "Bearer sk-CANARY-146-openai",
    "x-api-key": "CANARY-anthropic",
    "api-key": "CANARY-azure",
    "x-goog-api-key": "CANARY-goog",
    "user-agent": "OpenAI/JS 5.0",
  });
  const out = redactSecretsIn(`echo: ${headers}`);
  assert.doesNotMatch(out, /CANARY/);
  assert.match(out, /"authorization":"\*\*\*"/);
  assert.match(out, /"user-agent":"OpenAI\/JS 5\.0"/);
  assert.match(out, /"content-type":"application\/json"/);
  // JSON inside a JSON string (escaped quotes), a Python dict, header lines
  const nested = JSON.stringify({ error: `echo: ${headers}` });
  assert.doesNotMatch(redactSecretsIn(nested), /CANARY/);
  assert.equal(
    redactSecretsIn("{'Authorization': 'Basic dXNlcjpwdw==', 'Accept': '*/*'}"),
    "{'Authorization': '***', 'Accept': '*/*'}",
  );
  assert.equal(
    redactSecretsIn("Authorization: Bearer tok-123456\nX-Api-Key: k3y-CANARY\nHost: h"),
    "Authorization: Bearer ***\nX-Api-Key: ***\nHost: h",
  );
  assert.equal(redactSecretsIn("token=Bearer abc.def.ghi9"), "token=Bearer ***");
});

Deno.test("redactSecretsIn (R146): ordinary messages stay as they are", () => {
  for (
    const text of [
      'Provider "openai" answered HTTP 401: Incorrect API key provided: sk-proj-****abcd.',
      "Bearer authentication failed; Basic auth is not supported",
      "Missing Authorization header (set api-key: in the endpoint file)",
      '{"error":{"message":"The model `gpt-x` does not exist","type":"invalid_request_error"}}',
      '{"max_tokens": "100", "cache_key": "a1-b2-c3-d4", "token_count": "12"}',
      "Cannot reach provider at http://127.0.0.1:8000/v1: refused",
    ]
  ) assert.equal(redactSecretsIn(text, ["EMPTY"]), text);
});

Deno.test("headerSecrets / redactSecretsInError (R146): a request's sent keys, masked in an error and its causes", () => {
  const sent = headerSecrets({ Authorization: "Bearer tokenTOKENtoken", "X-Other": "visible1" });
  assert.deepEqual(sent, ["Bearer tokenTOKENtoken", "tokenTOKENtoken"]);
  assert.deepEqual(headerSecrets(undefined), []);
  const cause = new Error("raw tokenTOKENtoken");
  const e = Object.assign(new Error("echo tokenTOKENtoken", { cause }), {
    baseMessage: "echo tokenTOKENtoken",
    status: 401,
  });
  assert.equal(redactSecretsInError(e, sent), e);
  assert.equal(e.message, "echo ***");
  assert.equal(e.baseMessage, "echo ***");
  assert.doesNotMatch(e.stack ?? "", /tokenTOKENtoken/);
  assert.equal(cause.message, "raw ***");
  assert.equal(e.status, 401);
});
