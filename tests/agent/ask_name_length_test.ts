/**
 * An `ask` call's agent name and conversation id name log files
 * (`society/<Agent>/<id>.chat`): ids too long for a file name are error
 * outputs, not a chat-task job failing after its inferences were paid for
 * (R95-5).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { askArguments, MAX_ASK_NAME } from "../../src/chat/ask_call.ts";
import { ASK_PARAMETERS } from "../../src/agent/socialize.ts";
import { createJob } from "../../src/workflow/job.ts";
import { runJob } from "../../src/workflow/run.ts";
import { listJobFiles } from "../../src/workflow/files.ts";
import type { Message } from "../../src/chat/types.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { homeIn, tempDir } from "../support/cli.ts";
import { bossWorkflow } from "./delegation_support.ts";

Deno.test("a 300-character conversation id is an error output; the chat task's job ends and logs", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer({
    script: [
      {
        toolCalls: [{
          name: "ask",
          id: "c1",
          arguments: { agent: "Me", prompt: "go", conversation: "c".repeat(300) },
        }],
      },
      { text: "boss answer" },
    ],
  });
  for (const [name, text] of Object.entries({ Boss: "socialize: true\n", Me: "system:\n\nMe\n" })) {
    await Deno.mkdir(join(dir.path, "Agent", name), { recursive: true });
    await Deno.writeTextFile(join(dir.path, "Agent", name, "start_chat"), text);
  }
  const runtime = { cwd: dir.path, env: { SCOUT_HOME: join(dir.path, "home") } };
  const wf = bossWorkflow("Pipeline", dir.path, srv.url, runtime);
  const job = createJob(wf, "ask", { env: homeIn(dir.path), inputs: { chat: "user:\n\ngo\n" } });
  const result = (await runJob(job)) as Message[];
  assert.equal(result.at(-1)?.content, "boss answer");
  assert.equal(srv.requests.length, 2);
  const out = (srv.requests[1]!.body.messages as { role: string; content: string }[]).at(-1)!;
  assert.equal(out.role, "tool");
  assert.match(
    String(JSON.parse(out.content).exception),
    /"conversation" must be at most 100 characters \(it names a log file\), got 300/,
  );
  assert.deepEqual(await listJobFiles(job.path, "log"), ["log/agent.chat"]);
});

Deno.test("agent names and conversation ids: 100 characters pass, 101 do not; the schema says so", () => {
  assert.equal(MAX_ASK_NAME, 100);
  const ok = askArguments({ agent: "A".repeat(100), prompt: "p", conversation: "c".repeat(100) });
  assert.ok(!Array.isArray(ok));
  const bad = askArguments({ agent: "A".repeat(101), prompt: "p", conversation: "c".repeat(101) });
  assert.deepEqual(bad, [
    `"agent" must be at most 100 characters (it names a log file), got 101`,
    `"conversation" must be at most 100 characters (it names a log file), got 101`,
  ]);
  const props = ASK_PARAMETERS.properties as Record<string, { maxLength?: number }>;
  assert.equal(props.agent!.maxLength, 100);
  assert.equal(props.conversation!.maxLength, 100);
});
