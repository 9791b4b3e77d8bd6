/**
 * Cancelling a call to `scout-ai workflow mcp --http` with the SDK's own
 * client, as a real server process (R115-2): a client that initializes gets a
 * session, so its `notifications/cancelled` reaches the server running the
 * call and aborts the job (recorded `aborted`), as over stdio; closing the
 * client (its POST cut) aborts it too. A stranger — another client's session,
 * a request without one, a made-up session id — cannot cancel someone else's
 * call; SIGTERM still answers a session's call in flight.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { tempDir } from "../support/cli.ts";
import { postMcp, serveMcpHttp } from "../support/mcp_http_serve.ts";

const NAP = `export default (api) => api.workflow("Nap", { tasks: {
  nap: { type: "string", inputs: { ms: api.input.integer({ default: 1000, description: "ms" }) },
    run: async ({ ms }, job) => { await job.log("napping", "started");
      await new Promise((r) => setTimeout(r, ms)); return "slept " + ms; } },
} });
`;

async function napDir(): Promise<{ path: string } & AsyncDisposable> {
  const dir = await tempDir();
  await Deno.mkdir(join(dir.path, "workflows/Nap"), { recursive: true });
  await Deno.writeTextFile(join(dir.path, "workflows/Nap/workflow.ts"), NAP);
  return dir;
}

/** The `.info` status of the `nap` job with `ms`, or null before it exists. */
async function napStatus(home: string, ms: number): Promise<string | null> {
  const dir = join(home, "var/jobs/Nap/nap");
  try {
    for await (const e of Deno.readDir(dir)) {
      if (!e.name.endsWith(".info")) continue;
      const info = JSON.parse(await Deno.readTextFile(join(dir, e.name)));
      if (info.inputs?.[0] === ms) return info.status;
    }
  } catch { /* not yet */ }
  return null;
}

async function until(f: () => Promise<string | null>, want: string, ms: number) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v === want || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function connected(url: string): Promise<Client> {
  const client = new Client({ name: "t", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

Deno.test("workflow mcp --http: the SDK client's notifications/cancelled aborts the call's job; closing the client aborts another (R115-2)", async () => {
  await using dir = await napDir();
  await using srv = await serveMcpHttp(dir.path, "Nap");
  const home = join(dir.path, "home");
  const client = await connected(srv.url);
  try {
    const ac = new AbortController();
    const call = client.callTool({ name: "nap", arguments: { ms: 4000 } }, undefined, {
      signal: ac.signal,
    });
    call.catch(() => {});
    assert.equal(await until(() => napStatus(home, 4000), "napping", 5000), "napping");
    ac.abort();
    await assert.rejects(call);
    // recorded aborted at once, long before the body's 4 s nap ends
    assert.equal(await until(() => napStatus(home, 4000), "aborted", 2000), "aborted");
  } finally {
    await client.close();
  }
  const leaving = await connected(srv.url);
  const call = leaving.callTool({ name: "nap", arguments: { ms: 4100 } });
  call.catch(() => {});
  assert.equal(await until(() => napStatus(home, 4100), "napping", 5000), "napping");
  await leaving.close();
  assert.equal(await until(() => napStatus(home, 4100), "aborted", 2000), "aborted");
});

Deno.test("workflow mcp --http: another client's cancel, a cancel without a session or with a made-up one leaves a call running (R115-2)", async () => {
  await using dir = await napDir();
  await using srv = await serveMcpHttp(dir.path, "Nap");
  const home = join(dir.path, "home");
  const owner = await connected(srv.url);
  const stranger = await connected(srv.url);
  try {
    const call = owner.callTool({ name: "nap", arguments: { ms: 1500 } });
    assert.equal(await until(() => napStatus(home, 1500), "napping", 5000), "napping");
    // request ids are per client: the stranger's ids are the owner's
    for (let id = 0; id < 5; id++) {
      const cancel = { method: "notifications/cancelled", params: { requestId: id, reason: "x" } };
      await stranger.notification(cancel);
      const bare = await postMcp(srv.port, {}, { jsonrpc: "2.0", ...cancel });
      assert.equal(bare.status, 202, bare.body);
      const made = await postMcp(srv.port, { "mcp-session-id": "made-up" }, {
        jsonrpc: "2.0",
        ...cancel,
      });
      assert.equal(made.status, 404, made.body);
    }
    assert.deepEqual((await call).content, [{ type: "text", text: "slept 1500" }]);
    assert.equal(await napStatus(home, 1500), "done");
  } finally {
    await owner.close();
    await stranger.close();
  }
});

Deno.test("workflow mcp --http: SIGTERM answers a session's call in flight with a JSON-RPC error (R115-2)", async () => {
  await using dir = await napDir();
  await using srv = await serveMcpHttp(dir.path, "Nap");
  const home = join(dir.path, "home");
  const client = await connected(srv.url);
  try {
    const call = client.callTool({ name: "nap", arguments: { ms: 5000 } });
    call.catch(() => {});
    assert.equal(await until(() => napStatus(home, 5000), "napping", 5000), "napping");
    const t0 = Date.now();
    srv.proc.kill("SIGTERM");
    await assert.rejects(call, /Server shutting down/);
    assert.ok(Date.now() - t0 < 3000, "answered before the job's end");
    assert.equal((await srv.proc.status).code, 143, srv.stderr());
    assert.equal(await napStatus(home, 5000), "aborted");
  } finally {
    await client.close();
  }
});
