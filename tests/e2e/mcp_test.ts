/**
 * MCP end to end, as real processes: `llm ask` (from source and as the built
 * binary) with an `mcp:` line, the loopback provider scripting calls to the
 * SDK test server; Ctrl-C during a slow MCP call leaves no child behind; and
 * `scout-ai workflow mcp Baking` both as a server for the SDK's own client
 * (stdio and HTTP) and behind our `mcp: stdio 'scout-ai workflow mcp Baking'`
 * line, its calls persisted as jobs.
 */
import assert from "node:assert/strict";
import { cpSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { parse } from "../../src/chat/parse.ts";
import {
  BINARY,
  buildBinary,
  DENO,
  ROOT,
  runBinary,
  runScout,
  SCOUT_SOURCE_ARGS,
  spawnScout,
  tempDir,
} from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { alive, recordedPids as pids, running } from "../support/mcp_server.ts";
import { waitFor } from "../support/wait.ts";
import { mcpStdioSession } from "../support/mcp_stdio_lines.ts";

const SERVER = `${DENO} run -A ${join(ROOT, "tests/support/mcp_server.ts")}`;

/** A `scout-ai` on PATH: the binary, or a shell wrapper running cli.ts from source. */
async function scoutOnPath(dir: string, binary: boolean): Promise<string> {
  const bin = join(dir, binary ? "bin-binary" : "bin-source");
  await Deno.mkdir(bin, { recursive: true });
  const exe = join(bin, "scout-ai");
  if (binary) await Deno.symlink(BINARY, exe);
  else {
    const quoted = [DENO, ...SCOUT_SOURCE_ARGS].map((a) => `'${a}'`).join(" ");
    await Deno.writeTextFile(exe, `#!/bin/sh\nexec ${quoted} "$@"\n`);
    await Deno.chmod(exe, 0o755);
  }
  return `${bin}:${Deno.env.get("PATH") ?? ""}`;
}

function outputs(chatText: string) {
  return parse(chatText).filter((m) => m.role === "function_call_output").map((m) =>
    JSON.parse(String(m.content)) as {
      name: string;
      content: string;
      error?: string;
      step?: string;
    }
  );
}

Deno.test("llm ask with an mcp: stdio line: source and binary call the server, record the calls, leave no child", async () => {
  await buildBinary();
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  const pidFile = join(dir.path, "pids");
  const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "k", MCP_PID_FILE: pidFile };
  const question =
    `mcp: stdio '${SERVER}' echo fail\n\nmcp: stdio '/nonexistent/mcp-srv'\n\nuser:\n\nEcho then fail`;
  for (const [label, run] of [["source", runScout], ["binary", runBinary]] as const) {
    srv.script(
      {
        toolCalls: [
          { name: "echo", arguments: { text: "hi over MCP" }, id: "c1" },
          { name: "fail", arguments: { message: "nope" }, id: "c2" },
        ],
      },
      { text: "Done." },
    );
    const out = `${label}.chat`;
    const r = await run(
      [
        "llm",
        "ask",
        "-b",
        "openai",
        "-O",
        `url=${srv.url}`,
        "-m",
        "m",
        "--no-cache",
        "-o",
        out,
        question,
      ],
      { env, cwd: dir.path },
    );
    assert.equal(r.code, 0, `${label}: ${r.stderr}`);
    assert.equal(r.stdout, "Done.\n");
    // the server that cannot start is reported once on stderr, and the run goes on
    const reported = r.stderr.split("\n").filter((l) => l.includes("/nonexistent/mcp-srv"));
    assert.equal(reported.length, 1, `${label}: ${r.stderr}`);
    assert.match(
      reported[0]!,
      /MCP server "\/nonexistent\/mcp-srv": cannot start or connect: .*its tools are not available/,
    );
    const [echo, fail] = outputs(await Deno.readTextFile(join(dir.path, out)));
    assert.equal(echo!.content, "hi over MCP");
    assert.equal(fail!.error, "error");
    assert.match(fail!.content, /^MCP server ".*mcp_server\.ts": tool "fail" failed: nope$/);
    const tools = (srv.requests.at(-1)!.body.tools as { function: { name: string } }[])
      .map((t) => t.function.name);
    assert.deepEqual(tools.sort(), ["echo", "fail"], `${label}: only the named tools`);
  }
  const started = await pids(pidFile);
  assert.equal(started.length, 2, "one server per run");
  for (const pid of started) {
    // ended with the run: reaped by PID 1 once orphaned, which can take a second or two
    assert.ok(await waitFor(() => !running(pid), 10_000), `MCP child ${pid} ended with the run`);
  }
});

for (const binary of [false, true]) {
  const label = binary ? "binary" : "source";
  Deno.test(`llm ask (${label}): Ctrl-C during a slow MCP call ends the run and its stdio child`, async () => {
    if (binary) await buildBinary();
    await using dir = await tempDir();
    await using srv = await startProviderServer();
    srv.script({ toolCalls: [{ name: "slow", arguments: { ms: 60_000 }, id: "c1" }] }, {
      text: "x",
    });
    const pidFile = join(dir.path, "pids");
    const args = [
      "llm",
      "ask",
      "-b",
      "openai",
      "-O",
      `url=${srv.url}`,
      "-m",
      "m",
      "--no-cache",
      `mcp: stdio '${SERVER}' slow\n\nuser:\n\nsleep`,
    ];
    const child = new Deno.Command(binary ? BINARY : DENO, {
      args: binary ? args : [...SCOUT_SOURCE_ARGS, ...args],
      cwd: dir.path,
      env: {
        NO_COLOR: "1",
        SCOUT_HOME: join(dir.path, "home"),
        OPENAI_API_KEY: "k",
        MCP_PID_FILE: pidFile,
      },
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    const deadline = Date.now() + 60_000;
    while (srv.requests.length < 1 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 500)); // the slow call is under way
    const [pid] = await pids(pidFile);
    assert.ok(pid && alive(pid), "the MCP server runs during the call");
    child.kill("SIGINT");
    // a run that does not end its child hangs on it: fail instead of waiting forever
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    const status = await child.status;
    clearTimeout(timer);
    const orphan = !(await waitFor(() => !running(pid), 10_000)); // a zombie until PID 1 reaps it
    if (orphan) Deno.kill(pid, "SIGKILL");
    assert.notEqual(status.signal, "SIGKILL", "the run ended by itself after Ctrl-C");
    assert.notEqual(status.code, 0);
    assert.equal(orphan, false, "no orphaned MCP child after Ctrl-C");
  });
}

Deno.test("workflow mcp Baking: the SDK client lists and calls its tools over stdio and HTTP; jobs persisted; errors are tool errors", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const client = new Client({ name: "test", version: "1" });
  await client.connect(
    new StdioClientTransport({
      command: DENO,
      args: [
        ...SCOUT_SOURCE_ARGS,
        "workflow",
        "mcp",
        join(ROOT, "fixtures/workflows/Baking"),
        "batter",
        "broken",
      ],
      env: { SCOUT_HOME: home, PATH: Deno.env.get("PATH") ?? "", NO_COLOR: "1" },
      cwd: dir.path,
      stderr: "inherit",
    }),
  );
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t: { name: string }) => t.name), ["batter", "broken"]);
    const batter = tools[0]!;
    assert.deepEqual(batter.annotations, {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    assert.deepEqual(Object.keys(batter.inputSchema.properties ?? {}), [
      "flour",
      "eggs",
      "style",
      "return_path",
    ]);
    const res = await client.callTool({ name: "batter", arguments: { eggs: 3, flour: 1 } });
    assert.deepEqual(res.content, [{
      type: "text",
      text: '{"batter":"Whisked 3 soft","flour":1}',
    }]);
    const step = (res._meta as { step: string }).step;
    assert.match(step, /^Baking\/batter\/Default_[0-9a-f]{32}\.json$/);
    assert.ok(existsSync(join(home, "var/jobs", step)), "the job is persisted");
    assert.ok(existsSync(join(home, "var/jobs", step + ".info")));
    const broken = await client.callTool({ name: "broken", arguments: {} });
    assert.equal(broken.isError, true);
    assert.match(JSON.stringify(broken.content), /The oven is broken/);
  } finally {
    await client.close();
  }

  const server = spawnScout(
    ["workflow", "mcp", join(ROOT, "fixtures/workflows/Baking"), "--http", "0", "--json"],
    { cwd: dir.path, env: { SCOUT_HOME: home }, stderr: "null" },
  );
  const reader = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    let line = "";
    while (!line.includes("\n")) line += (await reader.read()).value ?? "";
    const { version, url } = JSON.parse(line) as { version: number; url: string };
    assert.equal(version, 1);
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const http = new Client({ name: "test", version: "1" });
    await http.connect(new StreamableHTTPClientTransport(new URL(url)));
    const { tools } = await http.listTools();
    assert.deepEqual(
      tools.map((t: { name: string }) => t.name),
      ["whisk", "batter", "cake"],
      "the exported tasks",
    );
    const cake = await http.callTool({ name: "cake", arguments: { eggs: 1, minutes: 5 } });
    assert.match(JSON.stringify(cake.content), /Cake \(Whisked 1 soft, 0.5 kg flour, 5 min\)/);
    await http.close();
  } finally {
    server.kill("SIGINT");
    await reader.cancel();
    const st = await server.status;
    assert.equal(st.code, 0, "Ctrl-C ends the HTTP server cleanly");
  }
  assert.ok(readdirSync(join(home, "var/jobs/Baking/cake")).length > 0);
});

Deno.test("mcp: stdio 'scout-ai workflow mcp Baking' — our client calls a Baking task through our server (source and binary)", async () => {
  await buildBinary();
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  cpSync(join(ROOT, "fixtures/workflows/Baking"), join(dir.path, "workflows/Baking"), {
    recursive: true,
  });
  const home = join(dir.path, "home");
  for (const binary of [false, true]) {
    const env = {
      SCOUT_HOME: home,
      OPENAI_API_KEY: "k",
      PATH: await scoutOnPath(dir.path, binary),
    };
    const flour = binary ? 2 : 1;
    srv.script(
      { toolCalls: [{ name: "batter", arguments: { eggs: 2, flour }, id: "b1" }] },
      { text: "Batter ready." },
    );
    const out = `${binary}.chat`;
    const run = binary ? runBinary : runScout;
    const r = await run([
      "llm",
      "ask",
      "-b",
      "openai",
      "-O",
      `url=${srv.url}`,
      "-m",
      "m",
      "--no-cache",
      "-o",
      out,
      "mcp: stdio 'scout-ai workflow mcp Baking'\n\nuser:\n\nMake batter",
    ], { env, cwd: dir.path });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "Batter ready.\n");
    const [o] = outputs(await Deno.readTextFile(join(dir.path, out)));
    assert.equal(o!.name, "batter");
    assert.equal(o!.content, JSON.stringify({ batter: "Whisked 2 soft", flour }));
    const tools = (srv.requests.at(-1)!.body.tools as { function: { name: string } }[])
      .map((t) => t.function.name);
    assert.deepEqual(tools, ["whisk", "batter", "cake"]);
  }
  const jobs = readdirSync(join(home, "var/jobs/Baking/batter")).filter((f) => f.endsWith(".json"));
  assert.equal(jobs.length, 2, "each call persisted its job");
});

const NAP = `export default (api) => api.workflow("Slow", { tasks: { nap: { type: "string",
  inputs: { ms: api.input.integer({ default: 1000, description: "ms" }) },
  run: async ({ ms }) => { await new Promise((r) => setTimeout(r, ms)); return "slept " + ms; } } } });
`;

Deno.test("workflow mcp over stdio: a client that sends and closes stdin gets every reply; the job ends done, no lock left (R81-3)", async () => {
  await buildBinary();
  await using dir = await tempDir();
  await Deno.mkdir(join(dir.path, "workflows/Slow"), { recursive: true });
  await Deno.writeTextFile(join(dir.path, "workflows/Slow/workflow.ts"), NAP);
  const lines = (ms: number) =>
    mcpStdioSession(
      { id: 2, method: "tools/call", params: { name: "nap", arguments: { ms } } },
      { id: 3, method: "tools/list" },
    );
  for (const [binary, ms] of [[false, 1000], [true, 1001], [true, 1001]] as const) {
    const home = join(dir.path, "home");
    const run = binary ? runBinary : runScout;
    // the third run finds the job done: its reply must not be dropped either
    const r = await run(["workflow", "mcp", "Slow"], {
      stdin: lines(ms),
      env: { SCOUT_HOME: home },
      cwd: dir.path,
    });
    assert.equal(r.code, 0, r.stderr);
    const replies = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(replies.map((m) => m.id).sort(), [1, 2, 3], r.stdout);
    const call = replies.find((m) => m.id === 2);
    assert.deepEqual(call.result.content, [{ type: "text", text: `slept ${ms}` }]);
    const step = call.result._meta.step as string;
    const info = JSON.parse(await Deno.readTextFile(join(home, "var/jobs", step + ".info")));
    assert.equal(info.status, "done");
    const locks = join(home, "tmp/persist_locks");
    const left = existsSync(locks) ? readdirSync(locks).filter((f) => f.endsWith(".lock")) : [];
    assert.deepEqual(left, [], "no persist lock left behind");
  }
});
