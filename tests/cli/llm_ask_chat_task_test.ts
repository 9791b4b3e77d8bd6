/**
 * `llm ask` (not `agent ask`) on chats whose workflow uses `api.chatTask`:
 * the CLI loads the agent layer — which adds `api.chatTask` to what workflow
 * files receive — lazily, only when a workflow file may be loaded (`tool:` /
 * `introduce:` lines through the `prepareWorkflows` hook, `task:` lines
 * through the compile's job resolver); `llm/` never imports `agent/`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DENO, ROOT, runScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

const ECHO = `export default (api) =>
  api.workflow("Echo", {
    tasks: { ...api.chatTask("ask", ({ chat }) => "echo " + chat().at(-1).content) },
  });
`;

async function setup(dir: string): Promise<Record<string, string>> {
  await Deno.mkdir(join(dir, "workflows", "Echo"), { recursive: true });
  await Deno.writeTextFile(join(dir, "workflows", "Echo", "workflow.js"), ECHO);
  return { SCOUT_HOME: join(dir, "home"), OPENAI_API_KEY: "sk-x" };
}

Deno.test("llm ask: a tool: line naming a workflow with a chat task runs it (agent layer loaded on demand)", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  const env = await setup(dir.path);
  await Deno.writeTextFile(join(dir.path, "q.chat"), "tool: Echo ask\n\nuser: hi\n");
  srv.script(
    { toolCalls: [{ name: "ask", id: "call_1", arguments: { chat: "user:\n\nhello there\n" } }] },
    { text: "It said echo." },
  );
  const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--no-cache"];
  const r = await runScout(["llm", "ask", "-c", "q.chat", ...flags], { env, cwd: dir.path });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "It said echo.\n");
  assert.equal(srv.requests.length, 2);
  assert.match(JSON.stringify(srv.requests[1]!.body), /echo hello there/);
});

Deno.test("llm ask: a task: line naming a chat task compiles (the job runs under llm ask)", async () => {
  await using dir = await tempDir();
  const env = await setup(dir.path);
  await Deno.writeTextFile(
    join(dir.path, "t.chat"),
    'task: Echo ask chat="user: hi"\n\nuser: what did it say?\n',
  );
  const r = await runScout(["llm", "ask", "-c", "t.chat", "--dry-run"], { env, cwd: dir.path });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /echo hi/);
});

Deno.test("llm ask loads the agent layer only for chats that load workflows", async () => {
  await using dir = await tempDir();
  const env = await setup(dir.path);
  await Deno.writeTextFile(join(dir.path, "plain.chat"), "user: hi\n");
  await Deno.writeTextFile(join(dir.path, "tool.chat"), "tool: Echo ask\n\nuser: hi\n");
  // One process, two asks (offline: no provider needed, both end in not_cached):
  // `api.chatTask` exists only once the agent layer was imported.
  const script = `
    import { main } from "${join(ROOT, "src", "cli", "main.ts")}";
    import { bufferIo } from "${join(ROOT, "tests", "support", "buffer_io.ts")}";
    import { workflowApi } from "${join(ROOT, "src", "workflow", "load.ts")}";
    const ask = (chat) => main(["llm", "ask", "-c", chat, "-b", "openai", "-m", "m", "--offline"],
      bufferIo({ cwd: ${JSON.stringify(dir.path)}, env: ${JSON.stringify(env)} }));
    const codes = [await ask("plain.chat")];
    const before = typeof workflowApi.chatTask;
    codes.push(await ask("tool.chat"));
    console.log(JSON.stringify({ codes, before, after: typeof workflowApi.chatTask }));
  `;
  const out = await new Deno.Command(DENO, {
    args: ["eval", "-q", `--config=${join(ROOT, "deno.json")}`, script],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  assert.equal(out.code, 0, dec.decode(out.stderr));
  assert.deepEqual(JSON.parse(dec.decode(out.stdout)), {
    codes: [1, 1],
    before: "undefined",
    after: "function",
  });
});
