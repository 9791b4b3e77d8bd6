/**
 * `scout-ai agent ask` on the task route (the agent's workflow has a chat
 * task `ask`, §1.4 step 2): the caller's `--offline` and `--no-cache` reach
 * the agent the job's body creates, and explicit `-m` wins over the start
 * chat's `model:` line there too ([TS-FIX] §7.5); the start chat's lines,
 * options of the job, reach the specialists there, as in Ruby (R131-3).
 */
import assert from "node:assert/strict";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { clearAgentCache } from "../../src/agent/load.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { type ProviderServer, startProviderServer } from "../support/provider_server.ts";
import { routeWorkflowText } from "../support/route_workflow.ts";
import { socialTaskWorkflowText } from "../agent/delegation_support.ts";
import { put } from "../support/files.ts";

// Each test names its workflow apart: under `deno test` an AsyncLocalStorage
// store set while one test ran can still be current when the next starts
// (not seen in a plain process, where two asks in a row both take the route).
function router(
  dir: string,
  srv: ProviderServer,
  name: string,
  keyEnv: Record<string, string> = { OPENAI_API_KEY: "sk-x" },
) {
  const home = join(dir, "home");
  put(home, "etc/AI/ep.yaml", `backend: openai\nurl: ${srv.url}\nmodel: ep-model\n`);
  const here = join(dir, "Agent", name);
  put(here, "start_chat", "system: You route\n\nendpoint: ep\n\nmodel: start-model\n");
  put(here, "workflow.ts", routeWorkflowText(name, here));
  clearAgentCache();
  const o = { env: { SCOUT_HOME: home, ...keyEnv }, cwd: dir };
  return {
    home,
    run: (...args: string[]) => runMain(["agent", "ask", name, ...args], o),
  };
}

Deno.test("task route: -m wins over the start chat's model: line; without it the line applies", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({
    fallback: (r) => ({ text: `by ${r.body.model}` }),
  });
  const { run } = router(t.path, srv, "Router1");
  let r = await run("-m", "cli-model", "q1");
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "by cli-model\n");
  r = await run("q2");
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "by start-model\n");
});

Deno.test("task route: --no-cache asks again (job and inference cache); --offline replays or fails not_cached", async () => {
  await using t = await tempDir();
  let n = 0;
  await using srv = await startProviderServer({ fallback: () => ({ text: `answer ${++n}` }) });
  const { run, home } = router(t.path, srv, "Router2");
  assert.equal((await run("q")).stdout, "answer 1\n");
  assert.equal((await run("q")).stdout, "answer 1\n"); // the job's answer
  const again = await run("--no-cache", "q");
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stdout, "answer 2\n");
  assert.equal(srv.requests.length, 2);
  // the job gone, the inference cache answers offline; a new question is not_cached
  rmSync(join(home, "var", "jobs"), { recursive: true });
  const cached = await run("--offline", "fresh");
  assert.notEqual(cached.code, 0);
  assert.match(
    cached.stderr,
    /Offline: no cached answer for endpoint "ep".*request digest [0-9a-f]{64}/,
  );
  assert.equal(srv.requests.length, 2, "offline never calls the provider");
  await run("-m", "other", "rec");
  rmSync(join(home, "var", "jobs"), { recursive: true });
  const replay = await run("--offline", "-m", "other", "rec");
  assert.equal(replay.code, 0, replay.stderr);
  assert.equal(replay.stdout, "answer 3\n");
  assert.equal(srv.requests.length, 3);
});

Deno.test("task route: -O key=… reaches the provider but never the job's files", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "ok" }) });
  const { run, home } = router(t.path, srv, "Router3", {});
  const r = await run("-O", "key=sk-SECRET-42", "q");
  assert.equal(r.code, 0, r.stderr);
  assert.equal(srv.requests[0]!.headers.authorization, "Bearer sk-SECRET-42");
  const files = new TextDecoder().decode(
    new Deno.Command("grep", { args: ["-rl", "SECRET-42", home] }).outputSync().stdout,
  );
  assert.equal(files, "", "no file under SCOUT_HOME holds the key");
  assert.ok(existsSync(join(home, "var", "jobs", "Router3", "ask")), "the job was written");
});

Deno.test("task route --json: the job, whether it was done already, model and usage of its log", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "ok" }) });
  const { run } = router(t.path, srv, "Router4");
  const first = JSON.parse((await run("--json", "q")).stdout);
  const again = JSON.parse((await run("--json", "q")).stdout);
  for (const [out, cached] of [[first, false], [again, true]] as const) {
    assert.equal(out.answer, "ok");
    assert.equal(out.cached, cached);
    assert.match(out.job, /^Router4\/ask\/Default_[0-9a-f]{32}\.chat$/);
    assert.equal(out.endpoint, "ep");
    assert.equal(out.backend, "openai");
    assert.equal(out.model, "start-model");
    assert.ok(out.usage.tt > 0, JSON.stringify(out.usage));
  }
  assert.equal(again.job, first.job);
  assert.equal(srv.requests.length, 1);
});

Deno.test("task route --json: cached means no provider request, as on llm ask: a replayed job's run is cached, usage as recorded (R143-3)", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({
    fallback: () => ({ text: "ok", usage: { pt: 7, ct: 3 } }),
  });
  const { run, home } = router(t.path, srv, "Router8");
  const ask = async (...args: string[]) => {
    const r = await run("--json", ...args, "q");
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  const live = await ask("-c", "plan.chat", "-o", "plan.chat");
  rmSync(join(home, "var", "jobs"), { recursive: true });
  // the job run again, every inference replayed from the inference cache
  const replayed = await ask("--offline", "-c", "cached.chat", "-o", "cached.chat");
  const done = await ask("--offline"); // the same job (cached.chat was empty), done
  const fresh = await ask("--no-cache");
  assert.deepEqual([live, replayed, done, fresh].map((o) => o.cached), [false, true, true, false]);
  assert.equal(srv.requests.length, 2);
  // usage: what the answer's inference was recorded with, a cached one's too (as llm ask)
  for (const o of [live, replayed, done, fresh]) {
    assert.deepEqual(o.usage, { pt: 7, ct: 3, tt: 10, cct: 0, cwt: 0, rt: 0 });
    assert.match(o.job, /^Router8\/ask\//);
  }
  const help = await runMain(["agent", "ask", "--help"], { env: { SCOUT_HOME: home } });
  const text = help.stdout.replace(/\s+/g, " ");
  assert.match(text, /"job" is there only on the task route/);
  assert.match(text, /"cached" is also true when that job was already done/);
  const llm = await runMain(["llm", "ask", "--help"], { env: { SCOUT_HOME: home } });
  assert.match(
    llm.stdout.replace(/\s+/g, " "),
    /"cached" is true when no provider request was made/,
  );
});

Deno.test("task route: -e/-m are agent options, each appended once to the job's chat (§5.1 step 1)", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({
    fallback: (r) => ({ text: `by ${r.body.model}` }),
  });
  const { run, home } = router(t.path, srv, "Router5");
  const r = await run("-e", "ep", "-m", "cli-model", "q");
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "by cli-model\n");
  const dir = join(home, "var", "jobs", "Router5", "ask");
  const info = Deno.readDirSync(dir).find((e) => e.name.endsWith(".info"))!;
  const chat = String(JSON.parse(Deno.readTextFileSync(join(dir, info.name))).inputs[0]);
  assert.equal(chat.match(/^sticky_option:\n\nmodel cli-model$/gm)?.length, 1, chat);
  assert.equal(chat.match(/^sticky_option:\n\nendpoint ep$/gm)?.length, 1, chat);
});

Deno.test("task route: flags are appended after the conversation, so -m beats QUESTION's model: line (§1.5); --help says so", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({
    fallback: (r) => ({ text: `by ${r.body.model}` }),
  });
  const { run } = router(t.path, srv, "Router6");
  assert.equal((await run("-m", "cli-model", "model: q-model\n\nq")).stdout, "by cli-model\n");
  assert.equal((await run("model: q-model\n\nq")).stdout, "by q-model\n");
  const help = await runMain(["agent", "ask", "--help"], { env: {}, cwd: t.path });
  assert.match(
    help.stdout.replace(/\s+/g, " "),
    /'ask' task answers through a job of it; there the flags are appended after the conversation/,
  );
});

Deno.test("task route continued with -c: one-shot logs are numbered over the conversation, so prov links each call to its own", async () => {
  await using t = await tempDir();
  let bossTurn = 0;
  await using srv = await startProviderServer({
    fallback: (req) => {
      const msgs = req.body.messages as { role: string; content: string }[];
      if (msgs[0]!.content === "You are Leaf") return { text: `leaf: ${msgs.at(-1)!.content}` };
      if (msgs.at(-1)!.role === "tool") return { text: `boss end ${bossTurn}` };
      bossTurn++;
      return {
        toolCalls: [{
          name: "ask",
          id: `c${bossTurn}`,
          arguments: { agent: "Leaf", prompt: bossTurn === 1 ? "q one" : "q two" },
        }],
      };
    },
  });
  const r = router(t.path, srv, "OneShotRouter");
  put(
    t.path,
    "Agent/OneShotRouter/start_chat",
    "system: You route\n\nendpoint: ep\n\nsocialize: true\n",
  );
  // the socializing agent's own `ask` tool, not its workflow's `ask` task, answers the calls
  const here = join(t.path, "Agent", "OneShotRouter");
  put(here, "workflow.ts", socialTaskWorkflowText("OneShotRouter", here));
  put(t.path, "Agent/Leaf/start_chat", "system: You are Leaf\n\nendpoint: ep\n");
  const saved = join(t.path, "s.chat");
  assert.equal((await r.run("-o", saved, "--no-cache", "first question")).code, 0);
  const second = await r.run("-c", saved, "-o", saved, "--no-cache", "second question");
  assert.equal(second.code, 0, second.stderr);
  // what `llm prov --tools` links each call of a chat to: the prompt its log holds
  const linked = async (chat: string) => {
    const prov = await runMain(["llm", "prov", chat, "--tools", "--json"], {
      env: { SCOUT_HOME: r.home, NO_COLOR: "1" },
      cwd: t.path,
    });
    assert.equal(prov.code, 0, prov.stderr);
    return (JSON.parse(prov.stdout) as {
      calls: { chat: string; delegation: { logs: string[] } | null }[];
    }).calls.filter((c) => c.delegation !== null && c.chat === chat).map((c) =>
      c.delegation!.logs.map((l) => /q (one|two)/.exec(Deno.readTextFileSync(l))?.[0])
    );
  };
  // each call of the session links to the one log that holds its prompt
  assert.deepEqual(await linked(saved), [["q one"], ["q two"]]);
  // the second job's own result holds only its call: linked to its log all the same
  const jobs = [...Deno.readTextFileSync(saved).matchAll(/^meta: job=(\S+)$/gm)].map((m) => m[1]);
  const job2 = join(r.home, "var", "jobs", jobs[1]!);
  assert.deepEqual(await linked(job2), [["q two"]]);
  // the output records the one-shot conversation it ran as
  assert.match(Deno.readTextFileSync(saved), /"id":"c2","conversation":"_oneshot-2"/);
});

Deno.test("task route: inherit conversation hands the specialist the conversation, never the caller's start chat", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({
    fallback: (req) => {
      const msgs = req.body.messages as { role: string; content: string }[];
      if (msgs[0]!.content === "You are Worker") return { text: "worker done" };
      if (msgs.at(-1)!.role === "tool") return { text: "lead done" };
      return {
        toolCalls: [{
          name: "ask",
          id: "c1",
          arguments: { agent: "Worker", prompt: "summarise", inherit: "conversation" },
        }],
      };
    },
  });
  const r = router(t.path, srv, "InheritRouter");
  const here = join(t.path, "Agent", "InheritRouter");
  // a tool line first: the job's chat lacks it (the job's tooling takes it), the rest is the same
  put(
    here,
    "start_chat",
    "tool: InheritRouter noop\n\nsystem: You are Lead\n\nendpoint: ep\n\nsocialize: true\n",
  );
  put(here, "workflow.ts", socialTaskWorkflowText("InheritRouter", here));
  put(t.path, "Agent/Worker/start_chat", "system: You are Worker\n\nendpoint: ep\n");
  put(t.path, "earlier.chat", "user: earlier\n\nassistant: noted\n");
  const run = await r.run("-c", join(t.path, "earlier.chat"), "--no-cache", "--json", "plan it");
  assert.equal(run.code, 0, run.stderr);
  // the job's log holds the Worker's receipt: total_usage counts it, usage does not
  const out = JSON.parse(run.stdout);
  assert.equal(out.total_usage.tt - out.usage.tt, 15, JSON.stringify(out));
  const worker = srv.requests.find((q) =>
    (q.body.messages as { content: string }[])[0]!.content === "You are Worker"
  )!;
  assert.deepEqual(
    (worker.body.messages as { role: string; content: string }[]).map((m) =>
      `${m.role} ${m.content}`
    ),
    ["system You are Worker", "user earlier", "assistant noted", "user plan it", "user summarise"],
  );
  assert.equal(worker.body.tools, undefined); // no `socialize` line came with it
});

Deno.test("task route: an uncached rerun takes the first free rerun-<n> job; the earlier job stays, and cached runs use it", async () => {
  await using t = await tempDir();
  let n = 0;
  await using srv = await startProviderServer({ fallback: () => ({ text: `answer ${++n}` }) });
  const env = { OPENAI_API_KEY: "sk-x", SCOUT_NO_ASK_CACHE: "true" };
  const uncached = router(t.path, srv, "Router7", env);
  const job = async (r: Promise<{ code: number; stdout: string; stderr: string }>) => {
    const out = await r;
    assert.equal(out.code, 0, out.stderr);
    return JSON.parse(out.stdout) as { answer: string; job: string; cached: boolean };
  };
  const first = await job(uncached.run("--json", "q"));
  assert.match(first.job, /^Router7\/ask\/Default_([0-9a-f]{32})\.chat$/); // nothing there yet
  const digest = first.job.slice("Router7/ask/Default_".length);
  const second = await job(router(t.path, srv, "Router7").run("--no-cache", "--json", "q"));
  const third = await job(uncached.run("--json", "q"));
  assert.deepEqual([second.job, second.answer, second.cached], [
    `Router7/ask/rerun-2_${digest}`,
    "answer 2",
    false,
  ]);
  assert.deepEqual([third.job, third.answer], [`Router7/ask/rerun-3_${digest}`, "answer 3"]);
  // each job keeps its own run's answer; a cached run reads the first
  const jobs = join(uncached.home, "var", "jobs");
  for (const [j, a] of [[first, "answer 1"], [second, "answer 2"], [third, "answer 3"]] as const) {
    assert.match(Deno.readTextFileSync(join(jobs, j.job)), new RegExp(`assistant:\n\n${a}$`));
  }
  const cached = await job(router(t.path, srv, "Router7").run("--json", "q"));
  assert.deepEqual([cached.job, cached.answer, cached.cached], [first.job, "answer 1", true]);
  assert.equal(srv.requests.length, 3);
});

Deno.test("a start chat's model: line reaches specialists on the task route, not the direct one; -e/-m reach them on both (Ruby)", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({
    fallback: (req) => {
      const msgs = req.body.messages as { role: string; content: string }[];
      if (msgs[0]!.content !== "You are boss") return { text: "specialist answer" };
      if (msgs.at(-1)!.role === "tool") return { text: "boss done" };
      return {
        toolCalls: ["Librarian", "Researcher"].map((agent) => ({
          name: "ask",
          id: `c-${agent}`,
          arguments: { agent, prompt: "p" },
        })),
      };
    },
  });
  const home = join(t.path, "home");
  // one server, told apart by model and key
  for (const ep of ["ep", "ep2"]) {
    const conf = `backend: openai\nurl: ${srv.url}\nmodel: ${ep}-model\nkey: ${ep}-key\n`;
    put(home, `etc/AI/${ep}.yaml`, conf);
  }
  const boss = "system: You are boss\n\nendpoint: ep\n\nmodel: boss-model\n\nsocialize: true\n";
  put(t.path, "Agent/Boss/start_chat", boss);
  const chief = join(t.path, "Agent", "ChiefRoute");
  put(chief, "start_chat", boss);
  put(chief, "workflow.ts", socialTaskWorkflowText("ChiefRoute", chief));
  // the specialists name no endpoint nor model: ASK_ENDPOINT is their default
  for (const name of ["Librarian", "Researcher"]) {
    put(t.path, `Agent/${name}/start_chat`, `system: You are ${name}\n`);
  }
  clearAgentCache();
  const o = { env: { SCOUT_HOME: home, ASK_ENDPOINT: "ep" }, cwd: t.path };
  const specialists = async (agent: string, ...flags: string[]) => {
    srv.requests.length = 0;
    const r = await runMain(["agent", "ask", agent, ...flags, "--no-cache", "S1 go"], o);
    assert.equal(r.code, 0, r.stderr);
    return srv.requests.filter((q) =>
      (q.body.messages as { content: string }[])[0]!.content !== "You are boss"
    ).map((q) => `${q.body.model} ${q.headers.authorization}`);
  };
  const both = (model: string, ep: string) => [1, 2].map(() => `${model} Bearer ${ep}-key`);
  // direct route: the lines are chat options of Boss's conversation, its own
  assert.deepEqual(await specialists("Boss"), both("ep-model", "ep"));
  // task route: the job's options (its chat's lines, the start chat's among them) are the
  // options of the agent its body loads, so they reach its specialists, as in Ruby
  assert.deepEqual(await specialists("ChiefRoute"), both("boss-model", "ep"));
  // -e/-m, agent options, reach them on both routes (ep2's key; -m's model)
  assert.deepEqual(await specialists("Boss", "-e", "ep2"), both("ep2-model", "ep2"));
  assert.deepEqual(await specialists("ChiefRoute", "-e", "ep2"), both("boss-model", "ep2"));
  for (const agent of ["Boss", "ChiefRoute"]) {
    assert.deepEqual(await specialists(agent, "-m", "flag-model"), both("flag-model", "ep"));
  }
});
