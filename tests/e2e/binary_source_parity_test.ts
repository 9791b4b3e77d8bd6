/**
 * Errors the binary (Bun) and `deno task scout` (Deno) reported differently
 * (R81-6): a JSON syntax error (JavaScriptCore's message names no position),
 * a workflow.ts importing a missing file (Bun drops an unused import), a
 * refused connection (each runtime's fetch words it its own way), and a path
 * under /dev (Deno's permission sets cannot grant it: only -A does).
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { buildBinary, type CliResult, runBinary, runScout, tempDir } from "../support/cli.ts";

/** Runs `args` with the binary and from source in `cwd`; both must give the same. */
async function both(args: string[], cwd: string): Promise<CliResult> {
  await buildBinary();
  const env = { HOME: join(cwd, "home"), SCOUT_HOME: join(cwd, "scout") };
  // a failed ask's snapshot is a file of its own in each run
  const snapshot = (r: CliResult) => ({
    ...r,
    stderr: r.stderr.replace(/\(snapshot: [^)]*\)/g, "(snapshot: …)"),
  });
  const bin = snapshot(await runBinary(args, { cwd, env }));
  const src = snapshot(await runScout(args, { cwd, env }));
  assert.equal(bin.stderr, src.stderr, `binary vs source: ${args.join(" ")}`);
  assert.equal(bin.stdout, src.stdout, `binary vs source: ${args.join(" ")}`);
  assert.equal(bin.code, src.code, `binary vs source: ${args.join(" ")}`);
  return bin;
}

Deno.test("binary and source: a JSON syntax error names its line and column (R81-6)", async () => {
  await using d = await tempDir();
  writeFileSync(
    join(d.path, "t.json"),
    '[{"role":"user","content":"a"},\n  {"role":"user","content":"b",}]',
  );
  const print = await both(["chat", "print", "t.json"], d.path);
  assert.equal(print.code, 1);
  assert.equal(
    print.stderr,
    "scout-ai: Invalid JSON in t.json: expected a double-quoted property name " +
      '(unexpected character "}") at line 2, column 32 (t.json:2)\n',
  );
  const schema = await both(["llm", "ask", "-s", "t.json", "x"], d.path);
  assert.equal(schema.code, 1);
  assert.match(
    schema.stderr,
    /^scout-ai: Cannot parse schema file: .* at line 2, column 32 \(t\.json:2\)\n$/,
  );
});

Deno.test("binary and source: a workflow.ts importing a missing file fails naming the line, used or not (R81-6)", async () => {
  await using d = await tempDir();
  const wf = (name: string, body: string) => {
    mkdirSync(join(d.path, "workflows", name), { recursive: true });
    writeFileSync(join(d.path, "workflows", name, "workflow.ts"), body);
  };
  wf(
    "Unused",
    '// a comment\nimport x from "./nope.ts";\nexport default (api) => api.workflow("Unused", { tasks: {} });\n',
  );
  wf(
    "Used",
    'import x from "./nope.ts";\nexport default (api) => api.workflow("Used", ' +
      '{ tasks: { a: { type: "string", run: () => String(x) } } });\n',
  );
  for (const [name, line] of [["Unused", 2], ["Used", 1]] as const) {
    const r = await both(["workflow", "task", name, "a"], d.path);
    const file = join(d.path, "workflows", name, "workflow.ts");
    assert.equal(r.code, 1, r.stderr);
    assert.equal(
      r.stderr,
      `scout-ai: Cannot load workflow file "${file}": Module not found ` +
        `"${join(d.path, "workflows", name, "nope.ts")}" (${file}:${line})\n`,
    );
  }
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const port = (server.address() as { port: number }).port;
  await new Promise((ok) => server.close(ok));
  return port;
}

Deno.test("binary and source: a refused connection is worded once, naming host:port (R81-6)", async () => {
  await using d = await tempDir();
  const port = await closedPort();
  for (const [backend, path] of [["openai", "/v1"], ["anthropic", "/v1/messages"]]) {
    const args = ["llm", "ask", "-b", backend!, "-O", `url=http://127.0.0.1:${port}/v1`];
    const r = await both([...args, "-O", "max_retries=0", "--no-cache", "hi"], d.path);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      `scout-ai: Cannot reach provider "${backend}" at http://127.0.0.1:${port}${path}: ` +
        `connection refused by 127.0.0.1:${port} (snapshot: …)\n`,
    );
  }
});

Deno.test("binary and deno task scout: a chat under /dev gets the CLI's answer, no permission error (R81-6)", async () => {
  await using d = await tempDir();
  // a character device is a chat ROOT read once (R81-7): /dev/null, an empty chat
  const r = await both(["llm", "prov", "/dev/null"], d.path);
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /allow-all|Requires/);
});
