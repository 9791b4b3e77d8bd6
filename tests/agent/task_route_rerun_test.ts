/**
 * Which `ask` job a task-route ask runs as when an earlier or concurrent run
 * has one of the same inputs ([TS-FIX], docs/spec-notes/agents-core.md): a
 * failed job whose logs hold what it paid for is kept (the next `rerun-<n>`
 * runs instead), a job that failed before paying for anything is rerun in
 * place as Ruby does, and two concurrent uncached asks never share a job.
 */
import assert from "node:assert/strict";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chat, current } from "../../src/agent/agent.ts";
import { clearAgentCache, loadAgent } from "../../src/agent/load.ts";
import { print } from "../../src/chat/print.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { socialTaskWorkflowText, wire } from "./delegation_support.ts";
import { put } from "../support/files.ts";

/** A task-route agent `name` under `dir` (its workflow's `ask` task runs it). */
function routeAgent(dir: string, name: string, startChat = `system: You are ${name}\n`): string {
  const here = join(dir, "Agent", name);
  put(here, "start_chat", startChat);
  put(here, "workflow.ts", socialTaskWorkflowText(name, here));
  clearAgentCache();
  return here;
}

/**
 * The agent at `here` loaded against the loopback provider at `url`, asked
 * "q" next; with `retryOnce`, its processException retries the first failure.
 */
async function askingAgent(
  here: string,
  cwd: string,
  env: Record<string, string>,
  url: string,
  { retryOnce = false } = {},
) {
  const a = await loadAgent(here, {
    runtime: { cwd, env },
    options: {
      backend: "openai",
      url,
      model: "m",
      persist: false,
      ...(retryOnce ? { max_retries: 0 } : {}),
    },
  });
  if (retryOnce) {
    let retried = 0;
    a.processException = () => ++retried === 1;
  }
  current(a).push({ role: "user", content: "q" });
  return a;
}

/** The `ask` jobs of a workflow (their info files' names, sorted). */
function askJobs(home: string, workflow: string): string[] {
  return readdirSync(join(home, "var", "jobs", workflow, "ask"))
    .filter((f) => f.endsWith(".info")).sort();
}

for (const noRecoverable of [false, true]) {
  Deno.test(`processException on the task route (SCOUT_NO_RECOVERABLE_ERROR=${noRecoverable}): the retry runs as rerun-2, the failed job's tokens stay`, async () => {
    await using t = await tempDir();
    let calls = 0;
    await using srv = await startProviderServer({
      fallback: (req) => {
        calls++;
        const usage = { pt: 10, ct: 5 };
        if (wire(req).at(-1)!.role !== "tool") {
          return { toolCalls: [{ name: "noop", id: `k${calls}`, arguments: {} }], usage };
        }
        return calls === 2 ? { status: 400, message: "broke" } : { text: "done", usage };
      },
    });
    const name = `PeRoute${noRecoverable ? "N" : "R"}`;
    const here = routeAgent(t.path, name);
    const env: Record<string, string> = {
      SCOUT_HOME: join(t.path, "home"),
      OPENAI_API_KEY: "sk-x",
    };
    if (noRecoverable) env.SCOUT_NO_RECOVERABLE_ERROR = "true";
    const a = await askingAgent(here, t.path, env, srv.url, { retryOnce: true });
    assert.equal((await chat(a)).text, "done");
    const receipts = current(a).filter((m) => m.role === "meta").map((m) => String(m.content));
    assert.equal(receipts.length, 2);
    assert.match(receipts[0]!, /job=.*\/Default_/);
    assert.match(receipts[1]!, /job=.*\/rerun-2_/);
    writeFileSync(join(t.path, "s.chat"), print(current(a)));
    const prov = await runMain(["llm", "prov", "--json", "s.chat"], { env, cwd: t.path });
    assert.equal(prov.code, 0, prov.stderr);
    // the failed attempt's call (15) and the retry's call and answer (2 × 15)
    assert.equal(JSON.parse(prov.stdout).totals.deduplicated_total.tt, 45);
  });
}

Deno.test("a task-route job that fails before paying for anything is rerun in place: no rerun-<n> per failing run", async () => {
  await using t = await tempDir();
  const home = join(t.path, "home");
  routeAgent(t.path, "Grow", "system: You help\n\nendpoint: missing\n");
  for (let i = 0; i < 3; i++) {
    const r = await runMain(["agent", "ask", "Grow", "question"], {
      env: { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" },
      cwd: t.path,
    });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /missing/);
  }
  assert.equal(askJobs(home, "Grow").length, 1, askJobs(home, "Grow").join(", "));
});

Deno.test("two concurrent uncached task-route asks of the same chat run as two jobs", async () => {
  await using t = await tempDir();
  let n = 0;
  await using srv = await startProviderServer({ fallback: () => ({ text: `answer ${++n}` }) });
  const here = routeAgent(t.path, "Twice");
  const env = {
    SCOUT_HOME: join(t.path, "home"),
    OPENAI_API_KEY: "sk-x",
    SCOUT_NO_ASK_CACHE: "true",
  };
  const agent = async () => {
    return await askingAgent(here, t.path, env, srv.url);
  };
  const [a, b] = [await agent(), await agent()];
  const [ra, rb] = await Promise.all([chat(a), chat(b)]);
  assert.equal(srv.requests.length, 2);
  assert.deepEqual([ra.text, rb.text].sort(), ["answer 1", "answer 2"]);
  assert.notEqual(ra.job?.path, rb.job?.path);
  assert.equal(askJobs(env.SCOUT_HOME, "Twice").length, 2);
});

const noParams = { type: "object", properties: {} };
/** A tool `name` whose runs are recorded in `ran`. */
function recorded(name: string, ran: string[]) {
  return {
    [name]: [() => {
      ran.push(name);
      return `${name} ran`;
    }, { name, description: "d", parameters: noParams }] as const,
  };
}

Deno.test("asks given different tools run as different jobs (at once, or one after the other); the same tools reuse the job", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({
    fallback: (req) => {
      if (wire(req).at(-1)!.role === "tool") return { text: "done" };
      const names = ((req.body.tools ?? []) as { function: { name: string } }[])
        .map((x) => x.function.name).filter((n) => n.startsWith("secret"));
      return { toolCalls: names.map((name, i) => ({ name, arguments: {}, id: `t${i}` })) };
    },
  });
  const here = routeAgent(t.path, "Given");
  const env = { SCOUT_HOME: join(t.path, "home"), OPENAI_API_KEY: "sk-x" };
  const ran: string[] = [];
  const agent = async () => {
    return await askingAgent(here, t.path, env, srv.url);
  };
  const outputs = (r: { messages: { role: string; content: unknown }[] }) =>
    r.messages.filter((m) => m.role === "function_call_output").map((m) => String(m.content));
  const [a, b] = [await agent(), await agent()];
  const [ra, rb] = await Promise.all([
    chat(a, { tools: recorded("secret_a", ran) }),
    chat(b, { tools: recorded("secret_b", ran) }),
  ]);
  assert.deepEqual(ran.sort(), ["secret_a", "secret_b"]);
  assert.notEqual(ra.job?.path, rb.job?.path);
  assert.match(ra.job!.shortPath, /\/tools-[0-9a-f]{12}_/);
  assert.ok(outputs(rb).every((o) => !o.includes("secret_a")), outputs(rb).join("\n"));
  // later: other tools ask again; the same tools answer from their job
  const before = srv.requests.length;
  const c = await chat(await agent(), { tools: recorded("secret_c", ran) });
  assert.ok(ran.includes("secret_c"));
  assert.equal(srv.requests.length, before + 2);
  const again = await chat(await agent(), { tools: recorded("secret_a", []) });
  assert.equal(again.job?.path, ra.job?.path);
  assert.equal(srv.requests.length, before + 2);
  assert.notEqual(c.job?.path, ra.job?.path);
});

for (
  const [label, args, conversation] of [
    ["a question that mentions job=", ["what does job=5 mean"], null],
    [
      "a later turn, earlier receipts in the chat",
      ["-c", "conv.chat", "second"],
      [
        "user:\n\nfirst\n\nmeta:\n\njob=EvidX/ask/Default_0123456789abcdef0123456789abcdef.chat\n\n",
        "assistant:\n\nfirst answer\n",
      ].join(""),
    ],
  ] as const
) {
  Deno.test(`a job that failed before paying is rerun in place: ${label}`, async () => {
    await using t = await tempDir();
    const home = join(t.path, "home");
    routeAgent(t.path, "EvidX", "system: You help\n\nendpoint: missing\n");
    for (let i = 0; i < 3; i++) {
      if (conversation) put(t.path, "conv.chat", conversation);
      const r = await runMain(["agent", "ask", "EvidX", ...args], {
        env: { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" },
        cwd: t.path,
      });
      assert.equal(r.code, 1, r.stderr);
    }
    assert.equal(askJobs(home, "EvidX").length, 1, askJobs(home, "EvidX").join(", "));
  });
}

Deno.test("an uncached ask next to a cached one of the same chat runs its own job", async () => {
  await using t = await tempDir();
  let n = 0;
  await using srv = await startProviderServer({ fallback: () => ({ text: `answer ${++n}` }) });
  const here = routeAgent(t.path, "Mixed");
  const home = join(t.path, "home");
  const agent = (extra: Record<string, string>) =>
    askingAgent(here, t.path, { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x", ...extra }, srv.url);
  const [cached, fresh] = [await agent({}), await agent({ SCOUT_NO_ASK_CACHE: "true" })];
  const [rc, rf] = await Promise.all([chat(cached), chat(fresh)]);
  assert.equal(srv.requests.length, 2);
  assert.notEqual(rc.job?.path, rf.job?.path);
});

Deno.test("reruns and toolsets share the ask task's dependencies", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "ok" }) });
  const here = join(t.path, "Agent", "Dep");
  put(here, "start_chat", "system: hi\n");
  put(
    here,
    "workflow.ts",
    `export default (api) => {
  const ask = api.chatTask("ask", async ({ agent, chat }) => await agent(${
      JSON.stringify(here)
    }, { chat: chat() })).ask;
  return api.workflow("Dep", { tasks: {
    prep: { type: "string", inputs: { corpus: { type: "string", default: "big" } }, run: () => "prepared" },
    ask: { ...ask, deps: [{ task: "prep", inputs: { corpus: "all" } }] },
  } });
};\n`,
  );
  clearAgentCache();
  const env = { SCOUT_HOME: join(t.path, "home"), OPENAI_API_KEY: "sk-x" };
  const names: string[] = [];
  for (
    const [tools, extra] of [[undefined, {}], [recorded("calc", []), {}], [undefined, {
      SCOUT_NO_ASK_CACHE: "true",
    }]] as const
  ) {
    const a = await askingAgent(here, t.path, { ...env, ...extra }, srv.url);
    names.push((await chat(a, tools ? { tools } : {})).job!.name);
  }
  assert.deepEqual(
    names.map((n) => n.replace(/_[0-9a-f]{32}\.chat$/, "").replace(/-[0-9a-f]{12}/, "-H")),
    [
      "Default",
      "tools-H",
      "rerun-2",
    ],
  );
  const preps = readdirSync(join(env.SCOUT_HOME, "var", "jobs", "Dep", "prep"));
  assert.deepEqual(
    preps.filter((f) => !f.endsWith(".info") && !f.endsWith(".files")).length,
    1,
    preps.join(", "),
  );
});

Deno.test("processException on the task route, nothing paid before the failure: the job reruns in place, one receipt", async () => {
  await using t = await tempDir();
  let calls = 0;
  await using srv = await startProviderServer({
    fallback: () =>
      ++calls === 1
        ? { status: 400, message: "broke" }
        : { text: "done", usage: { pt: 10, ct: 5 } },
  });
  const here = routeAgent(t.path, "PeNo");
  const env = { SCOUT_HOME: join(t.path, "home"), OPENAI_API_KEY: "sk-x" };
  const a = await askingAgent(here, t.path, env, srv.url, { retryOnce: true });
  assert.equal((await chat(a)).text, "done");
  const receipts = current(a).filter((m) => m.role === "meta");
  assert.equal(receipts.length, 1, print(current(a)));
  assert.equal(askJobs(env.SCOUT_HOME, "PeNo").length, 1);
});
