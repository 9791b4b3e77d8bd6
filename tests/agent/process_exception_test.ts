/**
 * `processException` retries a failed ask (agents.md §1.1, §1.3): the failed
 * attempt's record stays — its meta records (tokens billed), its tool calls
 * paired with their outputs (and the receipts of the specialists they ran) —
 * in the messages the ask returns, before the retry's, while the retry sends
 * the provider the same request as the first attempt (nothing of the failed
 * attempt, no partial answer, no dangling call).
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { print } from "../../src/chat/print.ts";
import { parseMeta } from "../../src/chat/meta.ts";
import type { Message } from "../../src/chat/types.ts";
import { chat, createAgent, current } from "../../src/agent/agent.ts";
import { socialize } from "../../src/agent/socialize.ts";
import type { Agent } from "../../src/agent/types.ts";
import { failureMessages } from "../../src/llm/loop.ts";
import { failedAttemptRecord } from "../../src/agent/failed_attempt.ts";
import { type ProviderServer, startProviderServer } from "../support/provider_server.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { addTemplate, shape, wire } from "./delegation_support.ts";

const echoTool = {
  echo: [(_name: string, args: Record<string, unknown>) => `echo:${args.x}`, {
    name: "echo",
    description: "echoes x",
    parameters: { type: "object", properties: { x: { type: "string" } } },
  }] as const,
};

function env(dir: string) {
  return { SCOUT_HOME: join(dir, "home"), OPENAI_API_KEY: "sk-x", ANTHROPIC_API_KEY: "sk-x" };
}

/** An agent that retries once (`seen` collects the errors it was asked about). */
function retrying(dir: string, srv: ProviderServer, seen: unknown[], options = {}): Agent {
  return createAgent({
    name: "Retrier",
    options: { backend: "openai", url: srv.url, model: "m", max_retries: 0, ...options },
    runtime: { env: env(dir), cwd: dir },
    processException: (e) => {
      seen.push(e);
      return seen.length === 1;
    },
  });
}

/** `llm prov --json` totals of the chat saved as `file` in `dir`. */
async function provTotals(dir: string, file: string, messages: Message[]) {
  writeFileSync(join(dir, file), print(messages));
  const prov = await runMain(["llm", "prov", "--json", file], { env: env(dir), cwd: dir });
  assert.equal(prov.code, 0, prov.stderr);
  const { pt, ct, tt } = JSON.parse(prov.stdout).totals.deduplicated_total;
  return { pt, ct, tt };
}

const metaTokens = (ms: readonly Message[]) =>
  ms.filter((m) => m.role === "meta").map((m) => parseMeta(String(m.content)).pt);

const echoCall = (id: string, pt: number, ct: number) => ({
  toolCalls: [{ name: "echo", arguments: { x: "a" }, id }],
  usage: { pt, ct },
});

Deno.test("processException retry: the failed attempt's metas and tool pairs stay, counted once; the retry resends nothing of it", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer();
  const seen: unknown[] = [];
  const a = retrying(t.path, srv, seen, { persist: false });
  current(a).push({ role: "user", content: "q" });
  srv.script(
    echoCall("c1", 10, 5), // attempt 1, round 1: billed 10/5
    { status: 400, message: "round two broke" }, // attempt 1, round 2
    echoCall("c2", 20, 7), // the retry, round 1
    { text: "done", usage: { pt: 30, ct: 9 } },
  );
  const r = await chat(a, { tools: echoTool });
  assert.equal(r.text, "done");
  assert.equal(seen.length, 1);
  assert.deepEqual(shape(current(a)).map((s) => s.split(" ")[0]), [
    "user",
    "meta", // attempt 1
    "function_call",
    "function_call_output",
    "meta", // the retry
    "function_call",
    "function_call_output",
    "meta",
    "assistant",
  ]);
  assert.deepEqual(metaTokens(current(a)), [10, 20, 30]);
  // the retry's first request is the first attempt's: the question, nothing of the failure
  assert.equal(srv.requests.length, 4);
  assert.deepEqual(wire(srv.requests[2]!), wire(srv.requests[0]!));
  assert.deepEqual(wire(srv.requests[2]!).map((m) => m.role), ["user"]);
  // and the retry's second round carries only the retry's own call and output
  assert.deepEqual(
    wire(srv.requests[3]!).map((m) => m.role),
    ["user", "assistant", "tool"],
  );
  assert.match(JSON.stringify(wire(srv.requests[3]!)), /"c2"/);
  assert.doesNotMatch(JSON.stringify(wire(srv.requests[3]!)), /"c1"/);
  // every billed token once: (10+5) + (20+7) + (30+9)
  assert.deepEqual(await provTotals(t.path, "saved.chat", current(a)), {
    pt: 60,
    ct: 21,
    tt: 81,
  });
});

Deno.test("processException retry with the cache on: the round the failed attempt paid for is replayed, counted once", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer();
  const seen: unknown[] = [];
  const a = retrying(t.path, srv, seen);
  current(a).push({ role: "user", content: "cached q" });
  srv.script(
    echoCall("c1", 10, 5),
    { status: 400, message: "round two broke" },
    { text: "done", usage: { pt: 30, ct: 9 } },
  );
  const r = await chat(a, { tools: echoTool });
  assert.equal(r.text, "done");
  assert.equal(srv.requests.length, 3); // the retry's first round came from the cache
  const ids = current(a).filter((m) => m.role === "meta").map((m) =>
    parseMeta(String(m.content)).inference_id
  );
  // the replayed round is the paid inference (its id): kept once, with one copy of its call
  assert.equal(ids.length, 2);
  assert.equal(current(a).filter((m) => m.role === "function_call").length, 1);
  assert.deepEqual(await provTotals(t.path, "saved.chat", current(a)), {
    pt: 40,
    ct: 14,
    tt: 54,
  });
});

for (const backend of ["openai", "anthropic"]) {
  Deno.test(`processException retry with the cache on: the next turn sends each call id once (${backend})`, async () => {
    await using t = await tempDir();
    await using srv = await startProviderServer();
    const seen: unknown[] = [];
    const a = retrying(t.path, srv, seen, { backend });
    current(a).push({ role: "user", content: `cached q ${backend}` });
    srv.script(
      echoCall("c1", 10, 5),
      { status: 400, message: "round two broke" },
      { text: "done" },
      { text: "second turn" },
    );
    await chat(a, { tools: echoTool });
    current(a).push({ role: "user", content: "and now?" });
    assert.equal((await chat(a, { tools: echoTool })).text, "second turn");
    // a call and its output name the id once each; a repeated pair is a 400 at Anthropic
    const sent = JSON.stringify(srv.requests.at(-1)!.body);
    assert.equal(sent.split('"c1"').length - 1, 2, sent);
  });
}

Deno.test("processException retry after a cut stream: the partial answer is not kept, its meta is", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer();
  const seen: unknown[] = [];
  const a = retrying(t.path, srv, seen, { persist: false });
  current(a).push({ role: "user", content: "q" });
  srv.script(
    { text: ["Partial ", "answer ", "that ", "breaks"], cutAfter: 2 },
    { text: "whole answer", usage: { pt: 30, ct: 9 } },
  );
  const r = await chat(a, { stream: true });
  assert.equal(r.text, "whole answer");
  assert.equal(seen.length, 1);
  const live = current(a);
  assert.deepEqual(live.map((m) => m.role), ["user", "meta", "meta", "assistant"]);
  assert.equal(parseMeta(String(live[1]!.content)).incomplete, "true");
  assert.ok(!print(live).includes("Partial"), print(live));
  assert.deepEqual(wire(srv.requests[1]!), wire(srv.requests[0]!));
});

Deno.test("processException retry: a specialist the failed attempt ran keeps its call, output and receipt", async () => {
  await using t = await tempDir();
  let bossRound = 0;
  await using srv = await startProviderServer({
    fallback: (req) => {
      const msgs = wire(req);
      if (String(msgs[0]?.content) === "You are Worker") {
        return { text: "worker answer", usage: { pt: 50, ct: 5 } };
      }
      bossRound++;
      if (msgs.at(-1)!.role !== "tool") {
        return {
          toolCalls: [{
            name: "ask",
            id: `b${bossRound}`,
            arguments: { agent: "Worker", prompt: "w" },
          }],
          usage: { pt: 100, ct: 10 },
        };
      }
      return bossRound === 2
        ? { status: 400, message: "boss broke" }
        : { text: "boss done", usage: { pt: 200, ct: 20 } };
    },
  });
  const seen: unknown[] = [];
  const boss = createAgent({
    name: "Boss",
    startChat: [{ role: "system", content: "You are Boss" }],
    options: { backend: "openai", url: srv.url, model: "m", max_retries: 0, persist: false },
    runtime: { env: env(t.path), cwd: t.path },
    processException: (e) => {
      seen.push(e);
      return seen.length === 1;
    },
  });
  addTemplate(
    boss,
    createAgent({
      name: "Worker",
      startChat: [{ role: "system", content: "You are Worker" }],
      options: { backend: "openai", url: srv.url, model: "m", persist: false },
      runtime: { env: env(t.path), cwd: t.path },
    }),
  );
  socialize(boss);
  current(boss).push({ role: "user", content: "go" });
  const r = await chat(boss);
  assert.equal(r.text, "boss done");
  const outputs = current(boss).filter((m) => m.role === "function_call_output");
  assert.equal(outputs.length, 2); // the failed attempt's call and the retry's, each paired
  assert.deepEqual(
    current(boss).filter((m) => m.role === "function_call").map((m) =>
      JSON.parse(String(m.content)).id
    ),
    ["b1", "b3"],
  );
  const bossRequests = srv.requests.filter((q) => wire(q)[0]?.content === "You are Boss");
  assert.deepEqual(wire(bossRequests[2]!), wire(bossRequests[0]!)); // the retry starts afresh
  assert.match(String(outputs[0]!.content), /"agent_meta":\[\{"role":"meta","content":"pt=50/);
  // Boss (110 + 110 + 220) + Worker twice (55 + 55), each inference once
  assert.deepEqual(await provTotals(t.path, "boss.chat", current(boss)), {
    pt: 500,
    ct: 50,
    tt: 550,
  });
});

Deno.test("processException: a retry that fails too is rethrown with both attempts' records", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer();
  const seen: unknown[] = [];
  const a = retrying(t.path, srv, seen, { persist: false });
  current(a).push({ role: "user", content: "q" });
  srv.script(
    echoCall("c1", 10, 5),
    { status: 400, message: "first broke" },
    echoCall("c2", 20, 7),
    { status: 400, message: "second broke" },
  );
  const err = await chat(a, { tools: echoTool }).then(() => assert.fail("must fail"), (e) => e);
  assert.match(String(err), /second broke/);
  assert.equal(seen.length, 2);
  assert.deepEqual(metaTokens(failureMessages(err)), [10, 20]);
  assert.deepEqual(
    failureMessages(err).map((m) => m.role),
    [
      "meta",
      "function_call",
      "function_call_output",
      "meta",
      "function_call",
      "function_call_output",
    ],
  );
  assert.deepEqual(current(a).map((m) => m.role), ["user"]); // chat appends nothing on failure
});

Deno.test("without processException a failure behaves as before: rethrown with its own messages", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer();
  const a = createAgent({
    options: { backend: "openai", url: srv.url, model: "m", max_retries: 0, persist: false },
    runtime: { env: env(t.path), cwd: t.path },
  });
  current(a).push({ role: "user", content: "q" });
  srv.script(echoCall("c1", 10, 5), { status: 400, message: "broke" }, { text: "never" });
  const err = await chat(a, { tools: echoTool }).then(() => assert.fail("must fail"), (e) => e);
  assert.match(String(err), /broke/);
  assert.deepEqual(failureMessages(err).map((m) => m.role), [
    "meta",
    "function_call",
    "function_call_output",
  ]);
  assert.deepEqual(current(a).map((m) => m.role), ["user"]);
  assert.equal(srv.pending(), 1);
});

Deno.test("failedAttemptRecord: no partial answer, no call or output without its partner", () => {
  const call = (id: string) => ({
    role: "function_call",
    content: JSON.stringify({ name: "t", arguments: {}, id }),
  });
  const output = (id: string) => ({
    role: "function_call_output",
    content: JSON.stringify({ id, content: "r" }),
  });
  const hosted = { role: "mcp_call", content: JSON.stringify({ id: "h1", output: "x" }) };
  const cut = { role: "meta", content: "pt=3 incomplete=true reason=error" };
  assert.deepEqual(
    failedAttemptRecord([
      { role: "meta", content: "pt=1" },
      call("c1"),
      call("c2"),
      output("c1"),
      output("c9"),
      hosted,
      cut,
      { role: "assistant", content: "Half an ans" },
    ]),
    [{ role: "meta", content: "pt=1" }, call("c1"), output("c1"), hosted, cut],
  );
  // a complete answer of a round that ran tools stays (only a cut one goes)
  const said = { role: "assistant", content: "Let me look" };
  assert.deepEqual(
    failedAttemptRecord([{ role: "meta", content: "pt=1" }, said, call("c1"), output("c1")]),
    [
      { role: "meta", content: "pt=1" },
      said,
      call("c1"),
      output("c1"),
    ],
  );
});
