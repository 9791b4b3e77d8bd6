/**
 * Aborting an ask while an MCP stdio tool runs (R105-7): the server is busy
 * with a call nobody waits for, so the ask's end stops it at once (SIGTERM to
 * its group) instead of closing its stdin and waiting out the 2 s grace for it
 * to stop by itself — the ask rejects before the tool would have finished, and
 * the server's group is gone by then.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ask } from "../../src/llm/ask.ts";
import { newSession } from "../../src/llm/meta_record.ts";
import { ROOT, tempDir } from "../support/cli.ts";
import { recordedPids, running } from "../support/mcp_server.ts";
import { startProviderServer } from "../support/provider_server.ts";

const SERVER = join(ROOT, "tests/support/mcp_server.ts");
/** Longer than the wait of a prompt stop, shorter than the 2 s grace of a gentle close. */
const TOOL_MS = 1500;

Deno.test("ask: an abort during an MCP stdio tool call ends the server at once, before the tool finishes", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ toolCalls: [{ name: "slow", id: "call_1", arguments: { ms: TOOL_MS } }] });
  const pidFile = join(dir.path, "pids");
  const marks = join(dir.path, "marks");
  const read = () => Deno.readTextFile(marks).catch(() => "");
  const ac = new AbortController();
  const asked = ask([
    { role: "mcp", content: `stdio '${Deno.execPath()} run -A ${SERVER}' slow` },
    { role: "user", content: "wait a little" },
  ], {
    backend: "openai",
    url: srv.url,
    model: "test-model",
    key: "sk-test",
    persist: false,
    env: {
      ...Deno.env.toObject(),
      SCOUT_HOME: join(dir.path, "home"),
      MCP_PID_FILE: pidFile,
      MCP_SLOW_FILE: marks,
    },
    config: { entries: [] },
    session: newSession(),
    signal: ac.signal,
  }).then(() => null, (e: Error) => e);
  // abort once the server has begun the call (or the ask ended without it: then the match fails)
  let ended = false;
  void asked.then(() => ended = true);
  while (!ended && !(await read()).includes("start")) await new Promise((r) => setTimeout(r, 20));
  assert.match(await read(), /^start 1500$/m, "the tool call reached the server");
  ac.abort(new DOMException("Interrupted", "AbortError"));
  const error = await asked;
  assert.ok(error instanceof Error, "the ask rejects");
  assert.doesNotMatch(await read(), /done/, "it rejects before the tool would have finished");
  const [pid] = await recordedPids(pidFile);
  assert.ok(pid !== undefined);
  assert.equal(running(pid), false, "the server is gone when the ask rejects");
});
