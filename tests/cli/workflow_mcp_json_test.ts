/**
 * `workflow mcp --json` prints the HTTP server's address: over stdio, where
 * stdout carries the MCP messages, it is a usage error (exit 2, nothing on
 * stdout) — it was accepted and did nothing, and since `--json` commands
 * print a document when a signal stops them, it would have put a stray line
 * into the client's stream. With `--http` it prints `{version, url}`.
 * Real `scout-ai` subprocesses.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { homeIn, ROOT, runScout, tempDir } from "../support/cli.ts";

const BAKING = join(ROOT, "fixtures", "workflows", "Baking");

Deno.test("workflow mcp --json without --http is a usage error naming --http (stdout stays the MCP stream's)", async () => {
  await using d = await tempDir();
  const r = await runScout(["workflow", "mcp", BAKING, "whisk", "--json"], {
    cwd: d.path,
    env: { ...homeIn(d.path), HOME: d.path },
    stdin: "",
  });
  assert.equal(r.code, 2, r.stdout + r.stderr);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /--json prints the HTTP server's address: give --http PORT too/);
});
