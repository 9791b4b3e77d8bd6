/**
 * What counts as the evidence of a failed task-route `ask` job (its logs'
 * meta records of inferences and jobs that its input chat does not hold) and
 * of its dependencies: a rerun — cached or `--no-cache` — never runs such a
 * job again in place, so `llm prov` of the saved chat counts every paid
 * inference once; a failure that paid nothing is rerun in place.
 */
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { clearAgentCache } from "../../src/agent/load.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { type RecordedRequest, startProviderServer } from "../support/provider_server.ts";
import { wire } from "./delegation_support.ts";
import { put } from "../support/files.ts";

/** Each inference is billed 15 tokens; an HTTP 400 bills nothing. */
const USAGE = { pt: 10, ct: 5 };
const billed = (reqs: RecordedRequest[], failed: number) => (reqs.length - failed) * 15;

/** The agent FU (a workflow `FU` whose tasks are `tasks`), its endpoint on `url`. */
function setUp(
  dir: string,
  url: string,
  tasks: (here: string) => string,
  startChat: string,
  extraEnv: Record<string, string> = {},
) {
  const home = join(dir, "home");
  const env = { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x", ...extraEnv };
  const here = join(dir, "Agent", "FU");
  put(home, "etc/AI/ep.yaml", `backend: openai\nurl: ${url}\nmodel: m\nmax_retries: 0\n`);
  put(here, "start_chat", startChat);
  put(
    here,
    "workflow.ts",
    `export default (api) => {
  const H = ${JSON.stringify(here)};
  return api.workflow("FU", { tasks: { ${tasks(here)},
    noop: { type: "string", inputs: {}, run: () => "ok" } }, exports: { exec: ["noop"] } });
};\n`,
  );
  clearAgentCache();
  return {
    home,
    run: (...args: string[]) => runMain(["agent", "ask", "FU", ...args], { env, cwd: dir }),
    prov: async (file: string) => {
      const r = await runMain(["llm", "prov", "--json", file], { env, cwd: dir });
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout).totals.deduplicated_total.tt as number;
    },
    jobs: (task: string) =>
      readdirSync(join(home, "var", "jobs", "FU", task)).filter((f) => f.endsWith(".info")).sort(),
  };
}

const chatTask = (name: string, chat = "chat()") =>
  `...api.chatTask(${
    JSON.stringify(name)
  }, async ({ agent, chat }) => await agent(H, { chat: ${chat} }))`;

/**
 * A provider for FU: `pre` (asked "PREP" or "PREP2") pays a round, then
 * fails when `fails(key)` says so (else answers); `ask` answers.
 */
function preProvider(fails: (key: "PREP" | "PREP2") => boolean) {
  return startProviderServer({
    fallback: (req) => {
      const msgs = wire(req);
      const u = msgs.find((m) => m.role === "user" && String(m.content).includes("PREP"));
      if (!u) return { text: "done", usage: USAGE };
      if (msgs.at(-1)!.role !== "tool") {
        return {
          toolCalls: [{ name: "noop", id: `p${msgs.length}`, arguments: {} }],
          usage: USAGE,
        };
      }
      return fails(String(u.content).includes("PREP2") ? "PREP2" : "PREP")
        ? { status: 400, message: "pre broke" }
        : { text: "ready", usage: USAGE };
    },
  });
}

/** {@link preProvider} whose first `preFails` rounds of `pre` fail. */
const preFailing = (preFails: number) => preProvider(() => preFails-- > 0);

/** FU's tasks: `pre`, and `ask` depending on it through `dep` (its options). */
const askAfterPre = (dep: string) => () =>
  `${
    chatTask("pre")
  }, ask: { ...api.chatTask("ask", async ({ agent, chat }) => await agent(H, { chat: chat() })).ask, deps: [${dep}] }`;
const PREP = `inputs: { chat: "user:\\n\\nPREP\\n" }`;
/** FU with {@link askAfterPre}`(dep)` and a start chat on the endpoint `ep`. */
const setUpPre = (dir: string, url: string, dep: string, env?: Record<string, string>) =>
  setUp(dir, url, askAfterPre(dep), "system: hi\n\nendpoint: ep\n", env);

for (const flags of [[], ["--no-cache"]]) {
  Deno.test(`a dependency that paid and failed is not rerun in place by a later run ${flags.join(" ") || "(cached)"}`, async () => {
    await using t = await tempDir();
    await using srv = await preFailing(1);
    const fu = setUpPre(t.path, srv.url, `{ task: "pre", ${PREP} }`);
    assert.equal((await fu.run("-o", "out.chat", "q")).code, 1); // pre paid one round, then failed
    const r = await fu.run(...flags, "-o", "out.chat", "q");
    assert.equal(r.code, 0, r.stderr);
    assert.equal(fu.jobs("pre").length, 2, fu.jobs("pre").join(", "));
    assert.equal(await fu.prov("out.chat"), billed(srv.requests, 1));
  });

  Deno.test(`a dependency with a fixed name that paid and failed is run again in place, as in Ruby ${flags.join(" ") || "(cached)"}`, async () => {
    await using t = await tempDir();
    await using srv = await preFailing(1);
    const dep = `{ task: "pre", jobname: "fixed", ${PREP} }`;
    const fu = setUpPre(t.path, srv.url, dep);
    assert.equal((await fu.run("-o", "out.chat", "q")).code, 1);
    const r = await fu.run(...flags, "-o", "out.chat", "q"); // ends: no name reaches the dependency
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(fu.jobs("pre").map((f) => f.split("_")[0]), ["fixed"]);
  });
}

Deno.test("a dependency whose name follows the ask's only in part: a rename that keeps failing ends the search", async () => {
  await using t = await tempDir();
  await using srv = await preFailing(2);
  // rerun-<n> of the ask names it `rerun`: every own-named candidate meets that failed job
  const dep =
    `{ task: "pre", resolve: (jn) => ({ jobname: jn?.split("-")[0], chat: "user:\\n\\nPREP\\n" }) }`;
  const fu = setUpPre(t.path, srv.url, dep);
  assert.equal((await fu.run("-o", "out.chat", "q")).code, 1);
  assert.equal((await fu.run("-o", "out.chat", "q")).code, 1);
  assert.equal((await fu.run("-o", "out.chat", "q")).code, 0);
  assert.equal(await fu.prov("out.chat"), billed(srv.requests, 2));
});

Deno.test("two failed dependencies, one renamable and one with a fixed name: only the fixed one runs again in place", async () => {
  await using t = await tempDir();
  const left = { PREP: 1, PREP2: 1 };
  await using srv = await preProvider((key) => left[key]-- > 0);
  const deps =
    `{ task: "pre", inputs: { chat: "user:\\n\\nPREP2\\n" } }, { task: "pre", jobname: "fixed", ${PREP} }`;
  const fu = setUpPre(t.path, srv.url, deps);
  assert.equal((await fu.run("-o", "out.chat", "q")).code, 1); // PREP2 pays and fails
  assert.equal((await fu.run("--no-cache", "-o", "out.chat", "q")).code, 1); // PREP2 afresh; fixed fails
  assert.equal((await fu.run("--no-cache", "-o", "out.chat", "q")).code, 0);
  // every paid round counted: the fixed dependency runs again in place (as Ruby does), its
  // failed run kept as an earlier attempt of it (R109-3)
  assert.equal(await fu.prov("out.chat"), billed(srv.requests, 2));
});

Deno.test("of two candidates that both run a fixed-name failure again, the one that runs no other", async () => {
  await using t = await tempDir();
  const fails = { PREP: [true], PREP2: [false, true, false] };
  const asked = { PREP: 0, PREP2: 0 };
  await using srv = await preProvider((key) => fails[key][asked[key]++] === true);
  // B is `fa` for the first run's name, `fb` for a rerun's; F has a fixed name
  const deps =
    `{ task: "pre", resolve: (jn) => ({ jobname: jn === undefined ? "fa" : "fb", chat: "user:\\n\\nPREP2\\n" }) }, { task: "pre", jobname: "fixed", ${PREP} }`;
  const fu = setUpPre(t.path, srv.url, deps);
  const codes = [];
  for (const flags of [[], ["--no-cache"], ["--no-cache"], ["--no-cache"]]) {
    codes.push((await fu.run(...flags, "-o", "out.chat", "q")).code);
  }
  // fa done and F pays and fails; fb pays and fails (F runs again in place); then answers
  assert.deepEqual(codes, [1, 1, 0, 0]);
  // every paid round counted: fb's is kept (the shared candidate does not run it again), and
  // F's failed run, run again in place, as an earlier attempt of F (R109-3)
  assert.equal(await fu.prov("out.chat"), billed(srv.requests, 2));
});

Deno.test("a dependency that failed for good is reported, not run again under a new name", async () => {
  await using t = await tempDir();
  await using srv = await preFailing(1);
  const fu = setUpPre(t.path, srv.url, `{ task: "pre", ${PREP} }`, {
    SCOUT_NO_RECOVERABLE_ERROR: "true",
  });
  assert.equal((await fu.run("-o", "out.chat", "q")).code, 1);
  const before = srv.requests.length;
  const r = await fu.run("-o", "out.chat", "q");
  assert.equal(r.code, 1);
  assert.match(r.stderr, /pre broke|failed/);
  assert.equal(srv.requests.length, before);
  assert.equal(fu.jobs("pre").length, 1);
});

Deno.test("a body that gives its agent a trimmed chat: a paid failure is still kept (records compared, not counted)", async () => {
  await using t = await tempDir();
  let fail = true;
  await using srv = await startProviderServer({
    fallback: (req) => {
      const msgs = wire(req);
      if (msgs.at(-1)!.role !== "tool") {
        return {
          toolCalls: [{ name: "noop", id: `k${msgs.length}`, arguments: {} }],
          usage: USAGE,
        };
      }
      if (msgs.filter((m) => m.role === "tool").length === 1) {
        return {
          toolCalls: [{ name: "noop", id: `j${msgs.length}`, arguments: {} }],
          usage: USAGE,
        };
      }
      return fail ? { status: 400, message: "broke" } : { text: "done", usage: USAGE };
    },
  });
  const fu = setUp(
    t.path,
    srv.url,
    () => chatTask("ask", `chat().filter((m) => m.role !== "meta")`),
    "system: You help\n\nendpoint: ep\n",
  );
  const receipt = (d: string) => `meta:\n\njob=FU/ask/Default_${d.repeat(8)}.chat\n\n`;
  put(
    t.path,
    "conv.chat",
    `user:\n\nfirst\n\n${receipt("0123")}assistant:\n\na1\n\nuser:\n\nsecond\n\n${
      receipt("4567")
    }assistant:\n\na2\n\n`,
  );
  // two paid rounds, then a failure: as many paid records as the input's two receipts
  assert.equal((await fu.run("-c", "conv.chat", "-o", "out.chat", "third")).code, 1);
  fail = false;
  assert.equal((await fu.run("-c", "conv.chat", "-o", "out.chat", "third")).code, 0);
  assert.deepEqual(fu.jobs("ask").map((f) => f.split("_")[0]), ["Default", "rerun-2"]);
  assert.equal(await fu.prov("out.chat"), billed(srv.requests, 1));
});

Deno.test("a body that logs in a subdirectory and fails before paying: rerun in place", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "never" }) });
  const fu = setUp(
    t.path,
    srv.url,
    (here) =>
      `...api.chatTask("ask", async (ctx) => {
  const a = await ctx.agent(${JSON.stringify(here)}, { chat: ctx.chat() });
  try { await a.chat(); return a; } finally { await ctx.logAgent(a, "attempt-1"); }
})`,
    "system: You help\n\nendpoint: missing\n",
  );
  put(
    t.path,
    "conv.chat",
    "user:\n\nfirst\n\nmeta:\n\ninference_id=abc pt=1\n\nassistant:\n\na1\n\n",
  );
  // -o elsewhere: conv.chat stays as it was, so each rerun asks the same chat (R149-2)
  for (let i = 0; i < 3; i++) {
    assert.equal((await fu.run("-c", "conv.chat", "-o", "out.chat", "again")).code, 1);
  }
  assert.equal(fu.jobs("ask").length, 1, fu.jobs("ask").join(", "));
  assert.equal(srv.requests.length, 0);
});
