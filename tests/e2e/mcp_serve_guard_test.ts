/**
 * `scout-ai workflow mcp` as a real server process (R96): the HTTP server
 * refuses a foreign Host or Origin (DNS rebinding) and accepts local ones
 * and clients that send no Origin; a task writing to stdout does not corrupt
 * the stdio stream (source and binary); a binary result is a base64
 * resource; an unknown tool is a protocol error; a cancelled call aborts its
 * job; progress notifications; SIGTERM answers the calls in flight.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Message } from "../../src/chat/types.ts";
import { assembleTools } from "../../src/tools/assemble.ts";
import { runToolCalls } from "../../src/tools/dispatch.ts";
import { mcpToolResolver } from "../../src/tools/mcp/resolver.ts";
import {
  buildBinary,
  DENO,
  runBinary,
  runScout,
  SCOUT_SOURCE_ARGS,
  tempDir,
} from "../support/cli.ts";
import { mcpStdioSession } from "../support/mcp_stdio_lines.ts";
import { postMcp, serveMcpHttp } from "../support/mcp_http_serve.ts";

const REV = `export default (api) => api.workflow("Rev", { tasks: {
  rev: { type: "string", inputs: { text: api.input.string({ default: "abc", description: "t" }) },
    run: ({ text }) => [...text].reverse().join("") },
  partial: { type: "string", run: () => {
    process.stdout.write("progress 50%");
    console.log("halfway");
    console.info("info line");
    return "partial result"; } },
  bin: { type: "binary", run: () => new Uint8Array([0, 1, 2, 255, 254, 0x89, 0x50]) },
  nap: { type: "string", inputs: { ms: api.input.integer({ default: 1000, description: "ms" }) },
    run: async ({ ms }, job) => { await job.log("napping", "started");
      await new Promise((r) => setTimeout(r, ms)); return "slept " + ms; } },
} });
`;

async function revDir(): Promise<{ path: string } & AsyncDisposable> {
  const dir = await tempDir();
  await Deno.mkdir(join(dir.path, "workflows/Rev"), { recursive: true });
  await Deno.writeTextFile(join(dir.path, "workflows/Rev/workflow.ts"), REV);
  return dir;
}

const lines = mcpStdioSession;

Deno.test("workflow mcp over stdio: a task writing to stdout (write, console.log) leaves the MCP stream clean; it goes to stderr (source and binary) (R96-2)", async () => {
  await buildBinary();
  await using dir = await revDir();
  for (const [i, run] of [runScout, runBinary].entries()) {
    const r = await run(["workflow", "mcp", "Rev"], {
      stdin: lines({ id: 2, method: "tools/call", params: { name: "partial", arguments: {} } }),
      env: { SCOUT_HOME: join(dir.path, `home${i}`) },
      cwd: dir.path,
    });
    assert.equal(r.code, 0, r.stderr);
    const replies = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(replies.map((m) => m.id), [1, 2], r.stdout);
    assert.deepEqual(replies[1].result.content, [{ type: "text", text: "partial result" }]);
    assert.match(r.stderr, /progress 50%/);
    assert.match(r.stderr, /halfway/);
    assert.match(r.stderr, /info line/);
  }
});

Deno.test("workflow mcp: a binary result is a base64 resource; an unknown tool is a -32602 protocol error (R96-7, R96-10)", async () => {
  await using dir = await revDir();
  const r = await runScout(["workflow", "mcp", "Rev"], {
    stdin: lines(
      { id: 2, method: "tools/call", params: { name: "bin", arguments: {} } },
      { id: 3, method: "tools/call", params: { name: "nosuch", arguments: {} } },
      { id: 4, method: "tools/call", params: { name: "rev", arguments: { text: "héllo" } } },
    ),
    env: { SCOUT_HOME: join(dir.path, "home") },
    cwd: dir.path,
  });
  assert.equal(r.code, 0, r.stderr);
  const replies = new Map(
    r.stdout.trim().split("\n").map((l) => JSON.parse(l)).map((m) => [m.id, m]),
  );
  const [block] = replies.get(2).result.content;
  assert.equal(block.type, "resource");
  assert.equal(block.resource.mimeType, "application/octet-stream");
  const stored = await Deno.readFile(join(dir.path, "home/var/jobs/Rev/bin/Default"));
  assert.deepEqual([...stored.subarray(0, 7)], [0, 1, 2, 255, 254, 0x89, 0x50]);
  assert.equal(block.resource.blob, btoa(String.fromCharCode(...stored)), "the stored bytes");
  assert.equal(
    block.resource.uri,
    pathToFileURL(join(dir.path, "home/var/jobs/Rev/bin/Default")).href,
  );
  assert.equal(replies.get(3).error?.code, -32602, JSON.stringify(replies.get(3)));
  assert.match(replies.get(3).error.message, /nosuch/);
  assert.deepEqual(replies.get(4).result.content, [{ type: "text", text: "olléh" }]);
});

const serveHttp = (dir: string, extra: string[] = []) => serveMcpHttp(dir, "Rev", extra);
const post = postMcp;

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "x", version: "1" },
  },
};
const CALL = {
  jsonrpc: "2.0",
  id: 2,
  method: "tools/call",
  params: { name: "rev", arguments: { text: "pwned" } },
};

Deno.test("workflow mcp --http: a foreign Host or Origin is refused with 403 (DNS rebinding); local ones and no Origin pass (R96-1)", async () => {
  await using dir = await revDir();
  await using srv = await serveHttp(dir.path);
  const p = srv.port;
  for (const host of [`attacker.example:${p}`, `127.0.0.1:${p + 1}`, "attacker.example"]) {
    for (const msg of [INIT, CALL]) {
      const r = await post(p, { host, origin: `http://${host}` }, msg);
      assert.equal(r.status, 403, `Host ${host}: ${r.body}`);
      const err = JSON.parse(r.body);
      assert.equal(err.jsonrpc, "2.0");
      assert.equal(typeof err.error.message, "string");
    }
  }
  // a local Host with a foreign Origin: refused too
  const foreign = await post(
    p,
    { host: `127.0.0.1:${p}`, origin: "http://attacker.example" },
    CALL,
  );
  assert.equal(foreign.status, 403, foreign.body);
  for (const host of [`127.0.0.1:${p}`, `localhost:${p}`]) {
    for (const origin of [undefined, `http://${host}`, "http://localhost:3000"]) {
      const r = await post(p, { host, ...(origin ? { origin } : {}) }, CALL);
      assert.equal(r.status, 200, `Host ${host} Origin ${origin}: ${r.body}`);
      assert.match(r.body, /denwp/);
    }
  }
  // the SDK client (no Origin) works
  const client = new Client({ name: "t", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(srv.url)));
  const res = await client.callTool({ name: "rev", arguments: { text: "ok" } });
  assert.deepEqual(res.content, [{ type: "text", text: "ko" }]);
  await client.close();
  // bound to another address (--host): that address is allowed too
  await using other = await serveHttp(dir.path, ["--host", "127.0.0.2"]);
  const q = other.port;
  const ok = await post(
    q,
    { host: `127.0.0.2:${q}`, origin: `http://127.0.0.2:${q}` },
    CALL,
    undefined,
    "127.0.0.2",
  );
  assert.equal(ok.status, 200, ok.body);
  const bad = await post(q, { host: `evil.example:${q}` }, CALL, undefined, "127.0.0.2");
  assert.equal(bad.status, 403, bad.body);
});

Deno.test("our MCP client turns the -32602 of an unknown tool into an error tool output (R96-10)", async () => {
  await using dir = await revDir();
  const cmd = [DENO, ...SCOUT_SOURCE_ARGS, "workflow", "mcp", join(dir.path, "workflows/Rev")]
    .map((a) => `'${a}'`).join(" ");
  const resolver = mcpToolResolver({ cwd: dir.path, env: { SCOUT_HOME: join(dir.path, "home") } });
  try {
    const line = [{ role: "mcp", content: `stdio "${cmd.replaceAll('"', '\\"')}" rev` }, {
      role: "user",
      content: "hi",
    }] as Message[];
    const { registry } = await assembleTools(line, new Map(), resolver);
    // the model names a tool the server does not have (as a server whose list changed would)
    registry.set("nosuch", registry.get("rev")!);
    const out = await runToolCalls([{ name: "nosuch", arguments: {}, id: "c1" }], { registry });
    const o = JSON.parse(String(out[1]!.content)) as { content: string; error?: string };
    assert.equal(o.error, "error");
    assert.match(o.content, /Tool not found 'nosuch' in workflow Rev/);
  } finally {
    await resolver.close();
  }
});

/** The `.info` of the one `nap` job under `home`, or null before it exists. */
async function napInfo(home: string): Promise<{ status?: string; messages?: string[] } | null> {
  const dir = join(home, "var/jobs/Rev/nap");
  try {
    for await (const e of Deno.readDir(dir)) {
      if (e.name.endsWith(".info")) return JSON.parse(await Deno.readTextFile(join(dir, e.name)));
    }
  } catch { /* not yet */ }
  return null;
}

async function until<T>(f: () => Promise<T>, ok: (v: T) => boolean, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

Deno.test("workflow mcp: a cancelled call aborts its job when no one else waits on it (recorded aborted, recomputed later); with another caller it finishes (R96-3)", async () => {
  await using dir = await revDir();
  const home = join(dir.path, "home");
  const client = new Client({ name: "t", version: "1" });
  await client.connect(
    new StdioClientTransport({
      command: DENO,
      args: [...SCOUT_SOURCE_ARGS, "workflow", "mcp", "Rev"],
      env: { SCOUT_HOME: home, PATH: Deno.env.get("PATH") ?? "", NO_COLOR: "1" },
      cwd: dir.path,
      stderr: "ignore",
    }),
  );
  try {
    const ac = new AbortController();
    const call = client.callTool({ name: "nap", arguments: { ms: 1500 } }, undefined, {
      signal: ac.signal,
    });
    call.catch(() => {});
    await until(() => napInfo(home), (i) => i?.status === "napping");
    ac.abort();
    await assert.rejects(call);
    const info = await until(() => napInfo(home), (i) => i?.status === "aborted");
    assert.equal(info?.status, "aborted", JSON.stringify(info));
    await new Promise((r) => setTimeout(r, 1800)); // the body's sleep ends: nothing recorded
    assert.equal((await napInfo(home))?.status, "aborted");
    // a later call recomputes
    const again = await client.callTool({ name: "nap", arguments: { ms: 1500 } });
    assert.deepEqual(again.content, [{ type: "text", text: "slept 1500" }]);
    assert.equal((await napInfo(home))?.status, "done");

    // two callers of one job: one cancels, the job finishes for the other
    const other = new AbortController();
    const a = client.callTool({ name: "nap", arguments: { ms: 1400 } }, undefined, {
      signal: other.signal,
    });
    a.catch(() => {});
    const b = client.callTool({ name: "nap", arguments: { ms: 1400 } });
    await new Promise((r) => setTimeout(r, 600));
    other.abort();
    assert.deepEqual((await b).content, [{ type: "text", text: "slept 1400" }]);
  } finally {
    await client.close();
  }
});

Deno.test("workflow mcp --http: a client that disconnects mid-call aborts its job (R96-3)", async () => {
  await using dir = await revDir();
  await using srv = await serveHttp(dir.path);
  const home = join(dir.path, "home");
  const gone = new AbortController();
  post(srv.port, {}, { ...CALL, params: { name: "nap", arguments: { ms: 1500 } } }, gone.signal)
    .catch(() => {});
  await until(() => napInfo(home), (i) => i?.status === "napping");
  gone.abort();
  const info = await until(() => napInfo(home), (i) => i?.status === "aborted");
  assert.equal(info?.status, "aborted", JSON.stringify(info));
});

Deno.test("workflow mcp: a call with a progressToken gets the job's statuses as notifications/progress (R96-9)", async () => {
  await using dir = await revDir();
  const r = await runScout(["workflow", "mcp", "Rev"], {
    stdin: lines({
      id: 2,
      method: "tools/call",
      params: { name: "nap", arguments: { ms: 10 }, _meta: { progressToken: "p1" } },
    }),
    env: { SCOUT_HOME: join(dir.path, "home") },
    cwd: dir.path,
  });
  assert.equal(r.code, 0, r.stderr);
  const msgs = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
  const progress = msgs.filter((m) => m.method === "notifications/progress").map((m) => m.params);
  assert.ok(progress.every((p) => p.progressToken === "p1"), JSON.stringify(progress));
  assert.deepEqual(progress.map((p) => p.progress), progress.map((_, i) => i + 1));
  const step = msgs.find((m) => m.id === 2).result._meta.step;
  assert.deepEqual(progress.map((p) => p.message), [
    `${step}: start`,
    `${step}: napping`,
    `${step}: done`,
  ]);
  assert.equal(msgs.at(-1).id, 2, "the result comes after the notifications");
});

Deno.test("workflow mcp --http: SIGTERM with a call in flight answers it with a JSON-RPC error, records the job aborted, exits 143", async () => {
  await using dir = await revDir();
  await using srv = await serveHttp(dir.path);
  const home = join(dir.path, "home");
  const t0 = Date.now();
  const reply = post(srv.port, {}, {
    ...CALL,
    params: { name: "nap", arguments: { ms: 5000 } },
  });
  await until(() => napInfo(home), (i) => i?.status === "napping");
  srv.proc.kill("SIGTERM");
  const r = await reply;
  assert.ok(Date.now() - t0 < 4000, "answered before the job's end");
  assert.match(r.body, /"id":2/);
  assert.match(r.body, /Server shutting down/);
  const st = await srv.proc.status;
  assert.equal(st.code, 143, srv.stderr());
  assert.equal((await napInfo(home))?.status, "aborted");
});
