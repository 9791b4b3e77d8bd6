/**
 * Credentials in every form the backends take them — a Bedrock
 * `session_token` in an endpoint file, `-O session_token=…`, a url with
 * `user:password@` or `?key=…` — appear in no file under SCOUT_HOME, the job
 * directory or the working directory, and not on stdout or stderr, even
 * with `--debug`, when the request fails against a loopback server (R83-1).
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { clearAgentCache } from "../../src/agent/load.ts";
import { warn } from "../../src/cli/io.ts";
import { bufferIo } from "../support/buffer_io.ts";
import { reportError } from "../../src/cli/main.ts";
import { ScoutError } from "../../src/errors.ts";
import { type CliResult, runMain, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { TEST_AWS } from "../support/bedrock_protocol.ts";
import { routeWorkflowText } from "../support/route_workflow.ts";
import { put } from "../support/files.ts";

const SESSION = "SESSTOK-7f3a9c";
const PASSWORD = "PASSWD-91c2e4";
const QUERY_KEY = "QKEY-5d8e17";

/** Every file under `dir` (recursively) whose bytes hold `secret`, but the user's own `except`. */
function filesHolding(dir: string, secret: string, except: string[]): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (except.includes(p)) continue;
      else if (readFileSync(p).toString("latin1").includes(secret)) out.push(p);
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

/**
 * No `secret` in any file under `dirs` (but the files the user wrote them
 * in, `except`), nor on stdout or stderr.
 */
function assertNowhere(
  secrets: string[],
  dirs: string[],
  r: CliResult,
  except: string[] = [],
): void {
  for (const s of secrets) {
    for (const d of dirs) assert.deepEqual(filesHolding(d, s, except), [], `"${s}" is in a file`);
    assert.ok(!r.stdout.includes(s), `"${s}" on stdout:\n${r.stdout}`);
    assert.ok(!r.stderr.includes(s), `"${s}" on stderr:\n${r.stderr}`);
  }
}

/** A port nothing listens on (bound, then released). */
function closedPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

Deno.test("R83-1: a Bedrock endpoint file's session_token and keys reach no file or output when the request fails (--debug)", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({ script: [{ status: 500, message: "boom" }] });
  const home = join(t.path, "home");
  put(
    home,
    "etc/AI/bed.yaml",
    `backend: bedrock\nmodel: amazon.nova-lite-v1:0\nurl: ${srv.url}\nregion: us-east-1\n` +
      `access_key: ${TEST_AWS.accessKeyId}\nsecret_key: ${TEST_AWS.secretAccessKey}\n` +
      `session_token: ${SESSION}\nmax_retries: 0\n`,
  );
  const r = await runMain(["--debug", "llm", "ask", "-e", "bed", "--no-stream", "hi"], {
    env: { SCOUT_HOME: home, HOME: t.path },
    cwd: t.path,
  });
  assert.equal(r.code, 1, r.stderr);
  assert.equal(srv.requests.length, 1);
  assert.equal(srv.requests[0]!.headers["x-amz-security-token"], SESSION, "the token was sent");
  const snaps = readdirSync(join(home, "tmp", "ask"));
  assert.ok(snaps.some((f) => f.endsWith(".options.json")), "a failure snapshot was written");
  const options = JSON.parse(
    readFileSync(join(home, "tmp", "ask", snaps.find((f) => f.endsWith(".options.json"))!), "utf8"),
  );
  assert.equal(options.session_token, "[REDACTED]");
  assert.equal(options.region, "us-east-1", "what is no credential stays");
  assertNowhere([SESSION, TEST_AWS.secretAccessKey, TEST_AWS.accessKeyId], [t.path], r, [
    join(home, "etc", "AI", "bed.yaml"),
  ]);
});

Deno.test("R83-1: -O url with user:password@ and ?key= reaches no file or output when the request fails (--debug)", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({
    fallback: () => ({ status: 500, message: "boom" }),
  });
  const home = join(t.path, "home");
  const url = `http://bob:${PASSWORD}@127.0.0.1:${srv.port}/v1?key=${QUERY_KEY}&via=proxy`;
  const r = await runMain(
    [
      "--debug",
      "llm",
      "ask",
      "-b",
      "openai",
      "--no-stream",
      "-O",
      `url=${url}`,
      "-O",
      "max_retries=0",
      "hi",
    ],
    { env: { SCOUT_HOME: home, HOME: t.path, OPENAI_KEY: "sk-test" }, cwd: t.path },
  );
  assert.equal(r.code, 1, r.stderr);
  const dir = join(home, "tmp", "ask");
  const file = readdirSync(dir).find((f) => f.endsWith(".options.json"))!;
  const options = JSON.parse(readFileSync(join(dir, file), "utf8"));
  // where the request went stays readable; the credentials do not
  assert.equal(options.url, `http://bob:***@127.0.0.1:${srv.port}/v1?key=***&via=proxy`);
  assertNowhere([PASSWORD, QUERY_KEY, "sk-test"], [t.path], r);
});

for (const backend of ["openai", "ollama", "anthropic"]) {
  Deno.test(`R83-1: --debug's "Caused by" lines of a refused ${backend} connection show the url without its password or key`, async () => {
    await using t = await tempDir();
    const home = join(t.path, "home");
    const port = closedPort();
    const url = `http://bob:${PASSWORD}@127.0.0.1:${port}/v1?key=${QUERY_KEY}`;
    const r = await runMain(
      [
        "--debug",
        "llm",
        "ask",
        "-b",
        backend,
        "--no-stream",
        "-O",
        `url=${url}`,
        "-O",
        "max_retries=0",
        "hi",
      ],
      { env: { SCOUT_HOME: home, HOME: t.path, OPENAI_KEY: "k", ANTHROPIC_KEY: "k" }, cwd: t.path },
    );
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /Caused by: /);
    assert.match(r.stderr, new RegExp(`127\\.0\\.0\\.1:${port}`), "the address is still shown");
    assertNowhere([PASSWORD, QUERY_KEY], [t.path], r);
  });
}

/** An agent on the task route (its workflow's chat task `ask`) whose endpoint is `ep`. */
function router(dir: string, name: string, ep: string) {
  const home = join(dir, "home");
  put(home, "etc/AI/ep.yaml", ep);
  const here = join(dir, "Agent", name);
  put(here, "start_chat", "system: You route\n\nendpoint: ep\n");
  put(here, "workflow.ts", routeWorkflowText(name, here));
  clearAgentCache();
  return {
    home,
    run: (...args: string[]) =>
      runMain(["agent", "ask", name, ...args], {
        env: { SCOUT_HOME: home, HOME: dir },
        cwd: dir,
      }),
  };
}

Deno.test("R83-1: task route: -O session_token= and a url's password reach the job in memory, never its files", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "ok" }) });
  // the endpoint file names a port nothing listens on: only the -O url reaches the server
  const { run, home } = router(
    t.path,
    "RouterSecret1",
    `backend: ollama\nurl: http://127.0.0.1:${closedPort()}\nmodel: m\nmax_retries: 0\n`,
  );
  const url = `http://bob:${PASSWORD}@127.0.0.1:${srv.port}`;
  const r = await run("-O", `session_token=${SESSION}`, "-O", `url=${url}`, "q");
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "ok\n");
  assert.equal(srv.requests.length, 1);
  assert.equal(
    srv.requests[0]!.headers.authorization,
    `Basic ${btoa(`bob:${PASSWORD}`)}`,
    "the job's agent used the url as given",
  );
  assert.ok(existsSync(join(home, "var", "jobs", "RouterSecret1", "ask")), "the job was written");
  const info = readdirSync(join(home, "var", "jobs", "RouterSecret1", "ask"))
    .find((f) => f.endsWith(".info"))!;
  const text = readFileSync(join(home, "var", "jobs", "RouterSecret1", "ask", info), "utf8");
  assert.ok(text.includes(`url http://bob:***@127.0.0.1:${srv.port}`), text);
  assertNowhere([SESSION, PASSWORD], [t.path], r);
});

Deno.test("R83-1: task route: a failed ask's job, snapshot and --debug output hold no session_token, password or query key", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({
    fallback: () => ({ status: 500, message: "boom" }),
  });
  const { run } = router(t.path, "RouterSecret2", `backend: openai\nurl: ${srv.url}\nmodel: m\n`);
  const url = `http://bob:${PASSWORD}@127.0.0.1:${srv.port}/v1?api_key=${QUERY_KEY}`;
  const r = await run(
    "--debug",
    "-O",
    `session_token=${SESSION}`,
    "-O",
    `url=${url}`,
    "-O",
    "max_retries=0",
    "-O",
    "key=sk-route-key",
    "q",
  );
  assert.equal(r.code, 1, r.stderr);
  assert.ok(srv.requests.length >= 1);
  assertNowhere([SESSION, PASSWORD, QUERY_KEY, "sk-route-key"], [t.path], r);
});

Deno.test("R83-1: config list shows an endpoint's url without its password or key", async () => {
  await using t = await tempDir();
  const home = join(t.path, "home");
  put(
    home,
    "etc/AI/proxy.yaml",
    `backend: openai\nurl: http://bob:${PASSWORD}@proxy.internal:8080/v1?key=${QUERY_KEY}\n`,
  );
  put(home, "etc/config", `url http://alice:${PASSWORD}@gpu1:11434 ask\n`);
  for (const args of [["config", "list"], ["config", "list", "--json"]]) {
    const r = await runMain(args, { env: { SCOUT_HOME: home, HOME: t.path }, cwd: t.path });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.includes("http://bob:***@proxy.internal:8080/v1?key=***"), r.stdout);
    assertNowhere([PASSWORD, QUERY_KEY], [], r);
  }
});

Deno.test("R83-1: an error line and a warning show their urls without the password or key", () => {
  const io = bufferIo();
  const e = new ScoutError("config", "Cannot use http://bob:PW-88@h/v1?key=QK-99 here");
  assert.equal(reportError(e, { io, exitCode: 0, debug: true, logLevel: 5 }), 1);
  warn(io, "retrying http://bob:PW-88@h/v1?key=QK-99");
  const err = io.stderrText();
  assert.ok(err.includes("Cannot use http://bob:***@h/v1?key=*** here"), err);
  assert.ok(err.includes("warning: retrying http://bob:***@h/v1?key=***"), err);
  assert.ok(!err.includes("PW-88") && !err.includes("QK-99"), err);
});
