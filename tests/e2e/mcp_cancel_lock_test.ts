/**
 * `scout-ai workflow mcp --http` as a real server (R98-1): a call cancelled
 * by its client's disconnect fires the job's signal but keeps the job's lock
 * until the body settles, so a retry arriving meanwhile waits, then
 * recomputes: the old body never writes into the new run's tmp result, and
 * its failure never removes it.
 */
import assert from "node:assert/strict";
import { request } from "node:http";
import { join } from "node:path";
import { spawnScout, tempDir } from "../support/cli.ts";

const R = `import { appendFileSync } from "node:fs";
export default (api) => api.workflow("R", { tasks: {
  slow: { type: "text", run: async (_i, job) => {
    appendFileSync(job.tmpPath, "part1\\n");
    await new Promise((r) => setTimeout(r, 3000));
    appendFileSync(job.tmpPath, "part2\\n");
    return null; } },
  polite: { type: "text", run: async (_i, job) => {
    appendFileSync(job.tmpPath, "part1\\n");
    await new Promise((r, no) => { const t = setTimeout(r, 3000);
      job.signal.addEventListener("abort", () => { clearTimeout(t); no(new Error("stopped")); }); });
    appendFileSync(job.tmpPath, "part2\\n");
    return null; } },
  stuck: { type: "text", run: () => new Promise(() => {}) },
} });
`;

/** Starts the server on port 0; resolves with its port once it printed its URL. */
async function serve(dir: string): Promise<{ port: number; proc: Deno.ChildProcess }> {
  const proc = spawnScout(["workflow", "mcp", "R", "--http", "0", "--json"], {
    cwd: dir,
    env: { SCOUT_HOME: join(dir, "home") },
    stderr: "null",
  });
  const reader = proc.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let line = "";
  while (!line.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("server ended");
    line += value;
  }
  reader.releaseLock();
  void proc.stdout.cancel().catch(() => {});
  return { port: Number(new URL(JSON.parse(line).url).port), proc };
}

/** A tools/call POST, given up (the connection closed) after `ms`. */
function call(port: number, name: string, ms: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: "127.0.0.1",
      port,
      path: "/mcp",
      method: "POST",
      signal: AbortSignal.timeout(ms),
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
    }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve(text));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name, arguments: {} },
    }));
  });
}

for (const name of ["slow", "polite"]) {
  Deno.test(`workflow mcp --http: a retry of a call cancelled by disconnect waits for the old body (${name}) to settle, then recomputes: the result is whole (R98-1)`, async () => {
    await using dir = await tempDir();
    await Deno.mkdir(join(dir.path, "workflows/R"), { recursive: true });
    await Deno.writeTextFile(join(dir.path, "workflows/R/workflow.ts"), R);
    const srv = await serve(dir.path);
    try {
      await assert.rejects(call(srv.port, name, 500));
      await new Promise((r) => setTimeout(r, 200));
      const body = await call(srv.port, name, 15000);
      assert.match(body, /part1\\npart2\\n/, body);
      const jobDir = join(dir.path, "home/var/jobs/R", name);
      const [file] = [...Deno.readDirSync(jobDir)].filter((e) => !e.name.includes("."));
      assert.equal(Deno.readTextFileSync(join(jobDir, file!.name)), "part1\npart2\n");
      const info = JSON.parse(Deno.readTextFileSync(join(jobDir, file!.name + ".info")));
      assert.equal(info.status, "done");
      // nothing of the old body comes after
      await new Promise((r) => setTimeout(r, name === "slow" ? 500 : 0));
      assert.equal(Deno.readTextFileSync(join(jobDir, file!.name)), "part1\npart2\n");
    } finally {
      srv.proc.kill("SIGTERM");
      await srv.proc.status;
    }
  });
}

Deno.test("workflow mcp --http: SIGTERM while a cancelled call's body still runs releases the job's lock it kept and exits 143 (R98-1)", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(join(dir.path, "workflows/R"), { recursive: true });
  await Deno.writeTextFile(join(dir.path, "workflows/R/workflow.ts"), R);
  const srv = await serve(dir.path);
  const locks = join(dir.path, "home/tmp/persist_locks");
  const held = () => [...Deno.readDirSync(locks)].length;
  try {
    await assert.rejects(call(srv.port, "slow", 500));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(held(), 1, "the lock is kept while the body runs");
    srv.proc.kill("SIGTERM");
    assert.equal((await srv.proc.status).code, 143);
    assert.equal(held(), 0);
    const jobDir = join(dir.path, "home/var/jobs/R/slow");
    const info = JSON.parse(Deno.readTextFileSync(join(jobDir, "Default.info")));
    assert.equal(info.status, "aborted");
  } finally {
    try {
      srv.proc.kill("SIGTERM");
    } catch { /* ended */ }
    await srv.proc.status;
  }
});

Deno.test("workflow mcp --http: a retry of a cancelled call whose body never settles gets an error naming the job within the bound, not a hang (R100-3)", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(join(dir.path, "workflows/R"), { recursive: true });
  await Deno.writeTextFile(join(dir.path, "workflows/R/workflow.ts"), R);
  const srv = await serve(dir.path);
  try {
    await assert.rejects(call(srv.port, "stuck", 500));
    await new Promise((r) => setTimeout(r, 200));
    const info = join(dir.path, "home/var/jobs/R/stuck/Default.info");
    assert.equal(JSON.parse(Deno.readTextFileSync(info)).status, "aborted");
    // a little longer than the bound (CANCELLED_RUN_WAIT_MS, 10 s): before, no answer at all
    const started = Date.now();
    const body = await call(srv.port, "stuck", 13000);
    assert.ok(Date.now() - started >= 9000, "it waited for the cancelled run first");
    assert.match(body, /"isError":true/, body);
    assert.match(body, /R\/stuck/, body);
    assert.match(
      body,
      new RegExp(`cancelled run is still running in this server \\(pid \\d+\\)`),
      body,
    );
    assert.match(body, /restart the server/, body);
    // the info still says aborted; other tasks still answer
    assert.equal(JSON.parse(Deno.readTextFileSync(info)).status, "aborted");
    assert.match(await call(srv.port, "polite", 15000), /part1\\npart2\\n/);
  } finally {
    srv.proc.kill("SIGTERM");
    assert.equal((await srv.proc.status).code, 143);
  }
});
