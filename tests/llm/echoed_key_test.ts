/**
 * R146: a provider or MCP server whose error body echoes the request's
 * headers back never gets the key shown, recorded or relayed — on stderr,
 * `--json` and `--debug` output, retry warnings, a job's `.info`, a relay
 * queue's reply file and the client's cache. Loopback servers that echo
 * every request header (and the bare key, which only masking by value
 * catches) answer 401/500; the keys are letters only, so nothing but that
 * masking and the header-shaped one can hide them.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { clearAgentCache } from "../../src/agent/load.ts";
import { emptyConfig, parseConfigText } from "../../src/config/store.ts";
import { runQueue } from "../../src/llm/queue.ts";
import { settingsSecrets } from "../../src/llm/sent_secrets.ts";
import { assembleTools } from "../../src/tools/assemble.ts";
import { mcpToolResolver } from "../../src/tools/mcp/resolver.ts";
import { md5hex } from "../../src/util/hash.ts";
import { errorInfoPatch } from "../../src/workflow/failure.ts";
import { runMain, runScout, tempDir } from "../support/cli.ts";
import { type RecordedRequest, startProviderServer } from "../support/provider_server.ts";
import type { ScriptStep } from "../support/provider_script.ts";
import { routeWorkflowText } from "../support/route_workflow.ts";
import { workerHome } from "../support/relay_worker.ts";
import { put } from "../support/files.ts";

/** The request's key as sent, without its `Bearer `. */
function bareKey(headers: Record<string, string>): string {
  return (headers.authorization ?? headers["x-api-key"] ?? "").replace(/^Bearer /, "");
}

/** What the server says: the bare key, then every header. */
function echo(headers: Record<string, string>): string {
  return `you sent ${bareKey(headers)}; echo: ${JSON.stringify(headers)}`;
}

/** A provider answering every request with `status` and an echo of its headers. */
function echoing(status: number, json = true): (req: RecordedRequest) => ScriptStep {
  return (req) => ({
    page: json
      ? {
        status,
        contentType: "application/json",
        body: JSON.stringify({ error: { message: echo(req.headers) } }),
      }
      : { status, contentType: "text/plain", body: echo(req.headers) },
  });
}

/** Files under `dir` holding `text` (grep -rl). */
function filesHolding(dir: string, text: string): string {
  const out = new Deno.Command("grep", { args: ["-rl", text, dir] }).outputSync();
  return new TextDecoder().decode(out.stdout);
}

Deno.test("R146-1: llm ask: an echoed key is masked on stderr, in retry warnings, --json and --debug", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer({ fallback: echoing(500) });
  const key = "CanaryOpenaiKeyLetters";
  const home = join(dir.path, "home");
  const r = await runMain(
    ["llm", "ask", "-b", "openai", "-O", `url=${srv.url}/v1`, "-O", "max_retries=1"]
      .concat(["-m", "m", "--json", "--debug", "hi"]),
    { env: { SCOUT_HOME: home, OPENAI_API_KEY: key }, cwd: dir.path },
  );
  assert.equal(r.code, 1);
  assert.equal(srv.requests[0]!.headers.authorization, `Bearer ${key}`, "the key was sent");
  assert.ok(!r.stderr.includes(key), r.stderr);
  assert.ok(!r.stdout.includes(key), r.stdout);
  // the rest of the server's message is kept
  assert.match(r.stderr, /warning: .*answered HTTP 500: you sent \*\*\*; echo: .*retrying in/);
  assert.match(r.stderr, /scout-ai: Provider "openai" answered HTTP 500: you sent \*\*\*; echo: /);
  assert.match(r.stderr, /"authorization":"\*\*\*"/);
  assert.match(JSON.parse(r.stdout.trim().split("\n").at(-1)!).error, /answered HTTP 500/);
  assert.match(r.stderr, /\n\s+at /, "--debug printed a stack");
  assert.equal(filesHolding(home, key), "", "no file under SCOUT_HOME holds the key");
});

Deno.test("R146-1: llm ask -b anthropic: a text body echoing x-api-key is masked", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer({ fallback: echoing(401, false) });
  const key = "CanaryAnthropicKeyLetters";
  const r = await runMain(
    ["llm", "ask", "-b", "anthropic", "-O", `url=${srv.url}`, "-m", "m", "--debug", "hi"],
    { env: { SCOUT_HOME: join(dir.path, "home"), ANTHROPIC_API_KEY: key }, cwd: dir.path },
  );
  assert.equal(r.code, 1);
  assert.equal(srv.requests[0]!.headers["x-api-key"], key, "the key was sent");
  assert.ok(!r.stderr.includes(key), r.stderr);
  assert.match(r.stderr, /answered HTTP 401: you sent \*\*\*; echo: \{"accept"/);
});

Deno.test("R146-2: agent ask on the task route: the job's .info never holds the echoed key", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer({ fallback: echoing(401) });
  const key = "CanaryAgentKeyLetters";
  const home = join(dir.path, "home");
  put(home, "etc/AI/ep.yaml", `backend: openai\nurl: ${srv.url}\nmodel: ep-model\n`);
  const here = join(dir.path, "Agent", "EchoRoute");
  put(here, "start_chat", "system: You route\n\nendpoint: ep\n");
  put(here, "workflow.ts", routeWorkflowText("EchoRoute", here));
  clearAgentCache();
  const r = await runMain(["agent", "ask", "EchoRoute", "-O", `key=${key}`, "q"], {
    env: { SCOUT_HOME: home },
    cwd: dir.path,
  });
  assert.equal(r.code, 1);
  assert.equal(srv.requests[0]!.headers.authorization, `Bearer ${key}`, "the key was sent");
  assert.ok(!r.stderr.includes(key), r.stderr);
  const jobs = join(home, "var", "jobs", "EchoRoute", "ask");
  const info = [...Deno.readDirSync(jobs)].find((e) => e.name.endsWith(".info"))!;
  const messages = JSON.parse(Deno.readTextFileSync(join(jobs, info.name))).messages;
  assert.match(String(messages), /answered HTTP 401: you sent \*\*\*; echo: /);
  assert.equal(filesHolding(home, key), "", "no file under SCOUT_HOME holds the key");
});

Deno.test("R146-3: a relay worker's key never reaches the queue's reply nor the client's cache", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer({ fallback: echoing(401) });
  const key = "CanaryWorkerKeyLetters";
  const env = { ...await workerHome(dir.path, srv), OPENAI_API_KEY: key };
  const clientHome = join(dir.path, "client-home");
  const cases = [
    { queue: join(dir.path, "q"), out: "reply", cmd: "process", args: ["-b", "relay", "-O"] },
    {
      queue: join(dir.path, "q2"),
      out: "response",
      cmd: "process_queries",
      args: ["-b", "openai"],
    },
  ];
  for (const c of cases) {
    const opt = c.cmd === "process" ? `server=${c.queue}` : `relay=${c.queue}`;
    const args = c.cmd === "process" ? [...c.args, opt] : [...c.args, "-O", opt, "-m", "m"];
    const client = runScout(["llm", "ask", ...args, "-O", "request_timeout=90", "x"], {
      cwd: dir.path,
      env: { SCOUT_HOME: clientHome },
    });
    let failed = 0;
    // the client starts from source: seconds on a loaded machine; the worker tries up to 90 s
    for (const until = Date.now() + 90_000; failed === 0 && Date.now() < until;) {
      const w = await runMain(["llm", c.cmd, "--once", "--json", c.queue], { env, cwd: dir.path });
      failed = JSON.parse(w.stdout).failed;
      if (failed === 0) await new Promise((r) => setTimeout(r, 20));
    }
    const r = await client;
    assert.equal(failed, 1, `${c.cmd}: the worker answered with an error`);
    assert.equal(srv.requests.at(-1)!.headers.authorization, `Bearer ${key}`, "the key was sent");
    // the client consumes an error reply (R167-3): what it printed is what the reply held
    assert.equal(filesHolding(c.queue, key), "", `${c.cmd}: no file of the queue holds the key`);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /answered HTTP 401: .*you sent \*\*\*; echo: /);
    assert.ok(!r.stderr.includes(key), r.stderr);
  }
  assert.equal(filesHolding(clientHome, key), "", "no file of the client's home holds the key");
});

Deno.test("R146-4: an MCP server echoing its configured key: the warning shows it masked", async () => {
  const key = "CanaryMcpKeyLetters";
  const srv = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const headers: Record<string, string> = {};
    req.headers.forEach((v, k) => (headers[k] = v));
    return new Response(echo(headers), { status: 401, headers: { "content-type": "text/plain" } });
  });
  const config = emptyConfig();
  config.entries.push(...parseConfigText(`key ${key} mcp`));
  const warnings: string[] = [];
  const resolver = mcpToolResolver({ config, warn: (m) => warnings.push(m) });
  try {
    const url = `http://127.0.0.1:${srv.addr.port}/mcp`;
    const lines = [{ role: "mcp", content: url }, { role: "user", content: "hi" }];
    const { registry } = await assembleTools(lines, new Map(), resolver);
    assert.equal(registry.size, 0);
  } finally {
    await resolver.close();
    await srv.shutdown();
  }
  const text = warnings.join("\n");
  assert.match(text, /cannot start or connect: .*you sent \*\*\*; echo: /);
  assert.ok(!text.includes(key), text);
});

Deno.test("R146: errors written to .info and relay replies mask header-shaped credentials", async () => {
  const body = 'echo: {"authorization":"Bearer tok-123456789","x-api-key":"k3y-987654321"}';
  const patch = errorInfoPatch(new Error(`Provider answered HTTP 401: ${body}`));
  const messages = String(patch.messages);
  assert.match(
    messages,
    /answered HTTP 401: echo: \{"authorization":"\*\*\*","x-api-key":"\*\*\*"\}/,
  );
  assert.doesNotMatch(JSON.stringify(patch), /123456789|987654321/);
  await using dir = await tempDir();
  Deno.writeTextFileSync(join(dir.path, `${md5hex("a")}.json`), "{}");
  const stats = await runQueue({
    dir: dir.path,
    out: "reply",
    once: true,
    answer: () => Promise.reject(new Error(`worker: ${body}`)),
  });
  assert.equal(stats.failed, 1);
  const reply = Deno.readTextFileSync(join(dir.path, "reply", `${md5hex("a")}.json`));
  assert.doesNotMatch(reply, /123456789|987654321/);
  assert.match(JSON.parse(reply).error, /^worker: echo: /);
});

Deno.test("settingsSecrets: the key and the backend's credential settings, not where they are", () => {
  const extra = {
    access_key: "AKIAEXAMPLE1",
    secret_key: "wJalrSECRET",
    session_token: "FwoGZXIvSESSION",
    region: "eu-west-1",
    aws_credentials_file: "/home/u/.aws/credentials",
  };
  assert.deepEqual(settingsSecrets({ key: "EMPTY", extra }), [
    "EMPTY",
    "AKIAEXAMPLE1",
    "wJalrSECRET",
    "FwoGZXIvSESSION",
  ]);
});
