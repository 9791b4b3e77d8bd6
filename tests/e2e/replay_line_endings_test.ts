/**
 * An offline replay of a recording whose files git checked out with CRLF
 * (R152-1): the chat task and `agent ask` are recorded with a multi-line LF
 * `start_chat`, which is then converted to CRLF (`core.autocrlf=true`); the
 * replay, from the recording's own working directory and `SCOUT_HOME`, asks
 * another request — line endings are part of it — and misses. The miss says
 * what it can know: the request's text holds CR characters (git's line-ending
 * conversion, the `.gitattributes` advice), the places it names only as a
 * possibility, never that they changed. Real subprocesses, loopback provider.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

const START = "system:\n\nYou are the Researcher.\nAnswer in one line.\n";
const WORKFLOW = `export default (api) =>
  api.workflow("Lab", {
    tasks: { ...api.chatTask("ask", async ({ agent, chat }) => await agent("Researcher", { chat: chat() })) },
  });
`;

Deno.test("a CRLF start_chat replay miss names CR line endings and does not claim the place changed", async () => {
  await using dir = await tempDir("scout-replay-crlf-");
  const root = dir.path;
  const home = join(root, "home");
  const srv = await startProviderServer({ fallback: () => ({ text: "Recorded." }) });
  const start = join(home, "Agent", "Researcher", "start_chat");
  await Deno.mkdir(join(home, "Agent", "Researcher"), { recursive: true });
  await Deno.writeTextFile(start, START);
  await Deno.mkdir(join(home, "workflows", "Lab"), { recursive: true });
  await Deno.writeTextFile(join(home, "workflows", "Lab", "workflow.js"), WORKFLOW);
  await Deno.mkdir(join(home, "etc", "AI"), { recursive: true });
  await Deno.writeTextFile(
    join(home, "etc", "AI", "loop.yaml"),
    `backend: openai\nurl: ${srv.url}\nmodel: scripted\nkey: loopback\n`,
  );
  const env = (offline: boolean) => ({
    SCOUT_HOME: home,
    ASK_ENDPOINT: "loop",
    ...(offline ? { SCOUT_OFFLINE: "1" } : {}),
  });
  const task = (offline: boolean) =>
    runScout(["workflow", "task", "Lab", "ask", "--chat", "user:\n\nWhy?\n", "--clean"], {
      env: env(offline),
      cwd: root,
    });
  const agent = (offline: boolean) =>
    runScout(["agent", "ask", "Researcher", "Why?"], { env: env(offline), cwd: root });
  for (const run of [task, agent]) {
    const rec = await run(false);
    assert.equal(rec.code, 0, rec.stderr);
    // LF as recorded: the replay hits
    const rep = await run(true);
    assert.equal(rep.code, 0, rep.stderr);
  }
  await srv.close();
  // the checkout converted the line endings (`sed -i 's/$/\r/'`, core.autocrlf=true)
  await Deno.writeTextFile(start, START.replaceAll("\n", "\r\n"));
  for (const run of [task, agent]) {
    const miss = await run(true);
    assert.equal(miss.code, 1, miss.stdout);
    assert.match(miss.stderr, /Offline: no cached answer for endpoint "loop"/);
    assert.match(miss.stderr, /the request's text holds CR \(\\r\) characters/);
    assert.match(miss.stderr, /core\.autocrlf/);
    assert.match(miss.stderr, /\.gitattributes such as "\*\.chat -text"/);
    // the place is the recording's: no verdict that it changed
    assert.doesNotMatch(miss.stderr, /a replay run (from|with) another/);
  }
});
