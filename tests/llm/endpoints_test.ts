import assert from "node:assert/strict";
import { join } from "node:path";
import {
  chooseEndpoint,
  endpointDirs,
  findEndpointFile,
  listEndpointFiles,
  loadEndpoint,
  parseEndpointText,
} from "../../src/config/endpoints.ts";
import { parseConfigText } from "../../src/config/store.ts";
import { isScoutError } from "../../src/errors.ts";
import { endpoints } from "../../src/llm/endpoints.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

async function layout(root: string) {
  const cwd = join(root, "proj");
  const home = join(root, "home");
  await Deno.mkdir(join(cwd, "etc", "AI"), { recursive: true });
  await Deno.mkdir(join(home, "etc", "AI"), { recursive: true });
  await Deno.writeTextFile(
    join(cwd, "etc", "AI", "local.yaml"),
    "backend: ollama\nmodel: llama3.1\n",
  );
  await Deno.writeTextFile(join(home, "etc", "AI", "local.yaml"), "backend: openai\n");
  await Deno.writeTextFile(
    join(home, "etc", "AI", "nano.yaml"),
    "backend: responses\nmodel: gpt-5-nano\nkey: sk-secret\n",
  );
  await Deno.writeTextFile(join(home, "etc", "AI", "bare"), "provider: anthropic\n");
  return { cwd, env: { SCOUT_HOME: home } };
}

Deno.test("endpoint search order: ./etc/AI before $SCOUT_HOME/etc/AI, then system dirs", async () => {
  await using d = await tempDir();
  const { cwd, env } = await layout(d.path);
  const dirs = endpointDirs({ cwd, env });
  assert.deepEqual(dirs.slice(0, 2), [join(cwd, "etc", "AI"), join(env.SCOUT_HOME, "etc", "AI")]);
  assert.deepEqual(dirs.slice(2), ["/usr/local/etc/scout/AI", "/etc/scout/AI"]);
  assert.equal(findEndpointFile("local", { cwd, env }), join(cwd, "etc", "AI", "local.yaml"));
  assert.equal((await loadEndpoint("local", { cwd, env })).settings.backend, "ollama");
  assert.equal(
    findEndpointFile("nano", { cwd, env }),
    join(env.SCOUT_HOME, "etc", "AI", "nano.yaml"),
  );
});

Deno.test("a file named exactly <name> counts; provider: is an alias of backend ([TS-FIX])", async () => {
  await using d = await tempDir();
  const { cwd, env } = await layout(d.path);
  const ep = await loadEndpoint("bare", { cwd, env });
  assert.deepEqual(ep.settings, { backend: "anthropic" });
  assert.deepEqual(await parseEndpointText("provider: a\nbackend: b\n", "x"), { backend: "b" });
});

Deno.test("unknown endpoint → endpoint_not_found naming it; names with path separators never match", async () => {
  await using d = await tempDir();
  const { cwd, env } = await layout(d.path);
  await assert.rejects(() => loadEndpoint("nope", { cwd, env }), (e) => {
    assert.ok(isScoutError(e, "endpoint_not_found"));
    const dirs = endpointDirs({ cwd, env }).join(", ");
    const make = join(env.SCOUT_HOME, "etc", "AI", "nope.yaml");
    assert.equal(e.message, `Endpoint not found "nope" (searched ${dirs}; make one as ${make})`);
    return true;
  });
  assert.equal(findEndpointFile("../AI/nano", { cwd, env }), null);
});

Deno.test("bad YAML and non-map endpoint files are config errors naming the file and line", async () => {
  await assert.rejects(() => parseEndpointText("backend: [unclosed\n", "/x/e.yaml"), (e) => {
    assert.ok(isScoutError(e, "config"));
    assert.equal(e.file, "/x/e.yaml");
    assert.equal(typeof e.line, "number");
    return true;
  });
  await assert.rejects(() => parseEndpointText("- a\n- b\n", "e.yaml"), /not a map/);
  // an empty file (or only comments) is no endpoint (R142-7): before, the ask went on
  // to "No API key for backend responses", naming no file
  for (const text of ["", "# later\n", "---\n"]) {
    await assert.rejects(() => parseEndpointText(text, "/x/e.yaml"), (e) => {
      assert.ok(isScoutError(e, "config"));
      assert.equal(e.message, "Endpoint file has no settings (expected a map)");
      assert.equal(e.file, "/x/e.yaml");
      return true;
    });
  }
});

Deno.test("a key with control characters is refused at its line; a name echoed is escaped (R142-7)", async () => {
  // as any key the pipeline does not know, it would reach the provider as a parameter
  await assert.rejects(
    () => parseEndpointText("backend: openai\nmod\0el: m\n", "/x/e.yaml"),
    (e) => {
      assert.ok(isScoutError(e, "config"));
      assert.equal(e.message, 'Endpoint setting "mod\\u0000el" has control characters in its name');
      assert.equal(e.file, "/x/e.yaml");
      assert.equal(e.line, 2);
      return true;
    },
  );
  await using d = await tempDir();
  const { cwd, env } = await layout(d.path);
  await assert.rejects(() => loadEndpoint("lo\0\0\x1b[2Jopback", { cwd, env }), (e) => {
    assert.ok(isScoutError(e, "endpoint_not_found"));
    assert.ok(
      e.message.startsWith('Endpoint not found "lo\\u0000\\u0000\\u001b[2Jopback": '),
      e.message,
    );
    // deno-lint-ignore no-control-regex
    assert.ok(!/[\x00-\x1f]/.test(e.message), e.message);
    return true;
  });
});

Deno.test("chooseEndpoint: option → config (ask, llm) → ASK_ENDPOINT, LLM_ENDPOINT, ENDPOINT, LLM, ASK", () => {
  const empty = { entries: [] };
  assert.deepEqual(chooseEndpoint("a", empty, { ASK_ENDPOINT: "b" }), {
    name: "a",
    source: "option",
  });
  const store = { entries: parseConfigText("endpoint fromcfg llm\n") };
  assert.deepEqual(chooseEndpoint(undefined, store, { ASK_ENDPOINT: "b" }), {
    name: "fromcfg",
    source: "config",
    at: { file: "config", line: 1 },
  });
  assert.deepEqual(chooseEndpoint(undefined, empty, { LLM: "x", ENDPOINT: "y" }), {
    name: "y",
    source: "env:ENDPOINT",
  });
  assert.deepEqual(chooseEndpoint(undefined, empty, { ASK: "z" }), {
    name: "z",
    source: "env:ASK",
  });
  assert.equal(chooseEndpoint(undefined, empty, {}), null);
  assert.deepEqual(chooseEndpoint("", empty, { ASK_ENDPOINT: "b" }), {
    name: "",
    source: "option",
  });
  const off = { entries: parseConfigText("endpoint false ask\n") };
  assert.equal(chooseEndpoint(undefined, off, { ASK_ENDPOINT: "b" }), null);
});

Deno.test("endpoints() lists names once (first hit wins) and never returns a key", async () => {
  await using d = await tempDir();
  const { cwd, env } = await layout(d.path);
  const list = (await endpoints({ cwd, env })).filter((e) =>
    !e.file.startsWith("/etc") && !e.file.startsWith("/usr")
  );
  assert.deepEqual(list.map((e) => e.name), ["bare", "local", "nano"]);
  const nano = list.find((e) => e.name === "nano")!;
  assert.equal(nano.hasKey, true);
  assert.ok(!JSON.stringify(list).includes("sk-secret"));
  assert.equal(list.find((e) => e.name === "local")!.backend, "ollama");
  assert.equal(listEndpointFiles({ dirs: [join(d.path, "missing")] }).length, 0);
});

Deno.test("endpoint files are YAML 1.1 as Ruby reads them: no/on are booleans, 1_000 a number in the request (R80-3)", async () => {
  const text = "backend: openai\nprevious_response: no\nlog_errors: on\nmax_tokens: 1_000\n";
  assert.deepEqual(await parseEndpointText(text, "ep.yaml"), {
    backend: "openai",
    previous_response: false,
    log_errors: true,
    max_tokens: 1000,
  });
  await using d = await tempDir();
  await using srv = await startProviderServer();
  const home = join(d.path, "home");
  await Deno.mkdir(join(home, "etc", "AI"), { recursive: true });
  await Deno.writeTextFile(
    join(home, "etc", "AI", "ep.yaml"),
    `${text}model: m1\nurl: ${srv.url}\n`,
  );
  srv.script({ text: "hello" });
  const r = await runMain(["llm", "ask", "-e", "ep", "--no-cache", "hi"], {
    env: { SCOUT_HOME: home, HOME: d.path, OPENAI_API_KEY: "sk-x" },
    cwd: d.path,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(srv.requests.length, 1);
  assert.equal(srv.requests[0]!.body.max_tokens, 1000);
});

Deno.test("a recursive YAML alias in an endpoint file is an error at the alias's line, before any request ([TS-FIX], R88-7)", async () => {
  await assert.rejects(
    () => parseEndpointText("backend: openai\na: &x [*x]\n", "/x/bad5.yaml"),
    (e) => {
      assert.ok(isScoutError(e, "config"));
      assert.equal(
        e.message,
        "Cannot parse endpoint file: Recursive alias *x: it is inside the node it names",
      );
      assert.equal(e.file, "/x/bad5.yaml");
      assert.equal(e.line, 2);
      return true;
    },
  );
  // a map inside itself too; an alias of an earlier node is fine
  await assert.rejects(
    () => parseEndpointText("backend: openai\nb: &y\n  c: *y\n", "e.yaml"),
    /Recursive alias \*y/,
  );
  assert.deepEqual(await parseEndpointText("backend: openai\nd: &z [1]\ne: *z\n", "e.yaml"), {
    backend: "openai",
    d: [1],
    e: [1],
  });
  await using d = await tempDir();
  await using srv = await startProviderServer();
  const home = join(d.path, "home");
  await Deno.mkdir(join(home, "etc", "AI"), { recursive: true });
  const file = join(home, "etc", "AI", "bad5.yaml");
  await Deno.writeTextFile(file, "backend: openai\na: &x [*x]\n");
  srv.script({ text: "hello" });
  const r = await runMain(
    ["llm", "ask", "-e", "bad5", "-O", `url=${srv.url}`, "--no-cache", "hi"],
    {
      env: { SCOUT_HOME: home, HOME: d.path, OPENAI_API_KEY: "sk-x" },
      cwd: d.path,
    },
  );
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    new RegExp(`Recursive alias \\*x.*\\(${file.replace(/[.]/g, "\\.")}:2\\)`),
  );
  assert.doesNotMatch(r.stderr, /snapshot|cannot be read|Maximum call stack/);
  assert.equal(srv.requests.length, 0, "nothing was sent");
});

Deno.test("a map or list where an endpoint setting is text (model: !ruby/object:Foo {}) is an error at its line; config list names it (R88-7)", async () => {
  const text = "backend: openai\nmodel: !ruby/object:Foo {}\n";
  await assert.rejects(() => parseEndpointText(text, "/x/bad6.yaml"), (e) => {
    assert.ok(isScoutError(e, "config"));
    assert.equal(e.message, 'Endpoint setting "model" must be text, got a map');
    assert.equal(e.file, "/x/bad6.yaml");
    assert.equal(e.line, 2);
    return true;
  });
  await assert.rejects(
    () => parseEndpointText("url: [a, b]\n", "e.yaml"),
    /"url" must be text, got a list/,
  );
  // other settings may be maps (request extras)
  assert.deepEqual(await parseEndpointText("model: m\nreasoning:\n  effort: low\n", "e.yaml"), {
    model: "m",
    reasoning: { effort: "low" },
  });
  await using d = await tempDir();
  const home = join(d.path, "home");
  await Deno.mkdir(join(home, "etc", "AI"), { recursive: true });
  await Deno.writeTextFile(join(home, "etc", "AI", "bad6.yaml"), text);
  const r = await runMain(["config", "list"], {
    env: { SCOUT_HOME: home, HOME: d.path },
    cwd: d.path,
  });
  assert.doesNotMatch(r.stdout + r.stderr, /\[object Object\]/);
  assert.match(r.stdout + r.stderr, /bad6 .*"model" must be text/);
});
