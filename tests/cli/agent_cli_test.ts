/**
 * `scout-ai agent ask|find|list` in-process against the loopback provider,
 * with agent directories in a temp dir and a temp SCOUT_HOME: explicit
 * `-e`/`-m` win over the start chat's lines (§7.5), the shared flag set
 * (`-o`, `-i`, `-w`, `--dry-run`, `--json`), and exit codes.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { clearAgentCache } from "../../src/agent/load.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { type ProviderServer, startProviderServer } from "../support/provider_server.ts";
import { put } from "../support/files.ts";

function fixture(dir: string, srv: ProviderServer) {
  const home = join(dir, "home");
  for (const ep of ["startep", "cliep"]) {
    put(home, `etc/AI/${ep}.yaml`, `backend: openai\nurl: ${srv.url}\nmodel: ${ep}-model\n`);
  }
  put(dir, "Agent/Planner/start_chat", "system: You plan\n\nendpoint: startep\n");
  put(
    dir,
    "Agent/Modeler/start_chat",
    "system: You model\n\nendpoint: startep\n\nmodel: start-model\n",
  );
  clearAgentCache();
  return { env: { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" }, cwd: dir };
}

Deno.test("§7.5 agent ask: -e/-m win over the start chat's endpoint:/model: lines; without them the lines apply", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "planned" }) });
  const o = fixture(t.path, srv);
  const run = (args: string[]) => runMain(["agent", "ask", ...args, "--no-cache"], o);
  let r = await run(["Planner", "plan it"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "planned\n");
  r = await run(["Planner", "-e", "cliep", "plan it"]);
  assert.equal(r.code, 0, r.stderr);
  r = await run(["Modeler", "plan it"]);
  assert.equal(r.code, 0, r.stderr);
  r = await run(["Modeler", "-m", "cli-model", "plan it"]);
  assert.equal(r.code, 0, r.stderr);
  // Ruby: the start chat's lines beat -e/-m (startep-model, startep-model, start-model, start-model)
  assert.deepEqual(srv.requests.map((q) => q.body.model), [
    "startep-model",
    "cliep-model",
    "start-model",
    "cli-model",
  ]);
  // the start chat is sent first, without its option lines
  const sent = srv.requests[0]!.body.messages as { role: string; content: string }[];
  assert.deepEqual(sent.map((m) => [m.role, m.content]), [["system", "You plan"], [
    "user",
    "plan it",
  ]]);
});

Deno.test("agent ask -o appends the question and new messages (never the start chat); --json; --dry-run with -i and -w", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer();
  const o = fixture(t.path, srv);
  srv.script({ text: "step one" });
  const r = await runMain(["agent", "ask", "Planner", "-o", "s.chat", "--json", "first"], o);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.answer, "step one");
  assert.equal(out.model, "startep-model");
  const saved = readFileSync(join(t.path, "s.chat"), "utf8");
  assert.match(saved, /^user:\n\nfirst\n/);
  assert.match(saved, /assistant:\n\nstep one/);
  assert.doesNotMatch(saved, /You plan/);
  put(t.path, "notes.chat", "user: imported note\n");
  // -w names a workflow the ask would find, --dry-run too (R137-4)
  put(t.path, "workflows/Pantry/workflow.ts", "export default { tasks: {} };\n");
  const d = await runMain([
    "agent",
    "ask",
    "Planner",
    "--dry-run",
    "-i",
    "notes.chat",
    "-w",
    "Pantry",
    "-c",
    "s.chat",
    "next",
  ], o);
  assert.equal(d.code, 0, d.stderr);
  assert.equal(srv.requests.length, 1); // nothing asked
  const order = ["You plan", "first", "step one", "imported note", "next", "tool:\n\nPantry"];
  const at = order.map((s) => d.stdout.indexOf(s));
  assert.ok(at.every((i, k) => i >= 0 && (k === 0 || i > at[k - 1]!)), d.stdout);
});

Deno.test("agent find and list: resolved directory, listing with where each was found, --json", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer();
  const o = fixture(t.path, srv);
  put(o.env.SCOUT_HOME, "var/Agent/Remote/start_chat", "system: far\n");
  const f = await runMain(["agent", "find", "Remote"], o);
  assert.equal(f.code, 0, f.stderr);
  assert.equal(f.stdout, join(o.env.SCOUT_HOME, "var", "Agent", "Remote") + "\n");
  const l = await runMain(["agent", "list"], o);
  assert.equal(l.code, 0, l.stderr);
  assert.deepEqual(l.stdout.trim().split("\n").map((x) => x.split(/\s+/)[0]), [
    "Modeler",
    "Planner",
    "Remote",
  ]);
  const j = JSON.parse((await runMain(["agent", "list", "--json"], o)).stdout);
  assert.equal(j.version, 1);
  assert.deepEqual(j.roots, [t.path, o.env.SCOUT_HOME]);
  const remote = j.agents.find((a: { name: string }) => a.name === "Remote");
  assert.deepEqual(remote, {
    name: "Remote",
    path: join(o.env.SCOUT_HOME, "var", "Agent", "Remote"),
    kind: "var/Agent",
    root: o.env.SCOUT_HOME,
    files: ["start_chat"],
    dirs: [{ path: join(o.env.SCOUT_HOME, "var", "Agent", "Remote"), files: ["start_chat"] }],
  });
});

Deno.test("agent list: an agent made of workflows/<Name> and Agent/<Name> shows each directory with its own files", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer();
  const o = fixture(t.path, srv);
  const wf = join(t.path, "workflows", "Thrower");
  const ag = join(o.env.SCOUT_HOME, "Agent", "Thrower");
  put(wf, "workflow.ts", "export default { tasks: {} };\n");
  put(ag, "start_chat", "system: You throw\n");
  const f = await runMain(["agent", "find", "Thrower"], o);
  assert.equal(f.stdout, wf + "\n"); // workflows/<Name> is preferred
  const l = await runMain(["agent", "list"], o);
  assert.equal(l.code, 0, l.stderr);
  // before: "Thrower  …/workflows/Thrower  (start_chat, workflow.ts)", start_chat not being there
  assert.ok(
    l.stdout.includes(`Thrower  ${wf}  (workflow.ts)  + ${ag}  (start_chat)\n`),
    l.stdout,
  );
  const j = JSON.parse((await runMain(["agent", "list", "--json"], o)).stdout);
  const thrower = j.agents.find((a: { name: string }) => a.name === "Thrower");
  assert.deepEqual([thrower.path, thrower.kind, thrower.files, thrower.dirs], [
    wf,
    "Agent",
    ["workflow.ts", "start_chat"],
    [{ path: wf, files: ["workflow.ts"] }, { path: ag, files: ["start_chat"] }],
  ]);
});

Deno.test("agent errors: one line, exit 1; usage errors (an ask of no agent: R94-4) exit 2", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer();
  const o = fixture(t.path, srv);
  put(t.path, "Agent/Broken/agent.ts", `export default () => { throw new Error("no oven"); };\n`);
  const cases: [string[], number, RegExp][] = [
    [["agent", "find", "Nobody"], 1, /^scout-ai: No agent found with name Nobody/],
    [["agent", "find", "a/../b"], 1, /^scout-ai: Invalid agent name "a\/\.\.\/b"/],
    // `agent find` answers "none" (exit 1); an ask of no agent is a mistake of the command line
    [["agent", "ask", "../x", "q"], 2, /^scout-ai: No agent directory at "\.\.\/x"/],
    [["agent", "ask", "Broken", "q"], 1, /^scout-ai: Agent script ".*agent\.ts" failed: no oven/],
    [["agent", "find"], 2, /missing required argument/],
  ];
  for (const [args, code, re] of cases) {
    const r = await runMain(args, o);
    assert.equal(r.code, code, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, re);
    if (code === 1) assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    assert.doesNotMatch(r.stderr, /\n\s+at /); // no stack trace
  }
  const h = await runMain(["agent", "ask", "--help"], o);
  assert.equal(h.code, 0);
  assert.match(h.stdout, /Examples[^\n]*:\n {2}[^\n]*scout-ai agent ask/);
});

Deno.test("R72-3 an agent directory that cannot be looked at (a symbolic link loop) stops ask and find, and list marks it", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "ran" }) });
  const o = fixture(t.path, srv);
  put(o.env.SCOUT_HOME, "Agent/Loop/start_chat", "system: not this one\n\nendpoint: startep\n");
  const loop = join(t.path, "Agent", "Loop");
  symlinkSync(loop, loop); // ELOOP for root too (a mode-000 directory is tests/agent/find_access_test.ts)
  // before: ./Agent/Loop taken for "not there", $SCOUT_HOME's Loop ran, exit 0
  for (const args of [["agent", "ask", "Loop", "hi", "--no-cache"], ["agent", "find", "Loop"]]) {
    const r = await runMain(args, o);
    assert.equal(r.code, 1, `${args.join(" ")}: ${r.stdout}`);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, new RegExp(`^scout-ai: Cannot read "${loop}": .*\n$`));
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  }
  assert.equal(srv.requests.length, 0);
  // before: Loop listed at $SCOUT_HOME as what runs; now where it was seen, marked
  const l = await runMain(["agent", "list"], o);
  assert.equal(l.code, 0, l.stderr);
  const line = l.stdout.split("\n").find((x) => x.startsWith("Loop "));
  assert.match(line ?? "", new RegExp(`^Loop {5}${loop} {2}\\(error: Cannot read "${loop}": `));
  const j = JSON.parse((await runMain(["agent", "list", "--json"], o)).stdout);
  const listed = j.agents.find((a: { name: string }) => a.name === "Loop");
  assert.deepEqual([listed.path, listed.kind, listed.root, listed.files], [
    loop,
    "Agent",
    t.path,
    [],
  ]);
  assert.match(listed.error, /^Cannot read ".*Loop": /);
});

Deno.test("§5.1 agent ask -c with a missing file starts an empty conversation (with or without -o; alone, it makes the file); an existing one is followed", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "fresh plan" }) });
  const o = fixture(t.path, srv);
  const sent = (i: number) =>
    (srv.requests[i]!.body.messages as { role: string; content: string }[])
      .map((m) => [m.role, m.content]);
  // without -o: answered from the start chat + question, the turn appended to the -c file
  // as in Ruby, which makes it (R149-2; before, nothing was written)
  let r = await runMain(["agent", "ask", "Planner", "-c", "made.chat", "--no-cache", "go"], o);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "fresh plan\n");
  assert.deepEqual(sent(0), [["system", "You plan"], ["user", "go"]]);
  assert.match(
    readFileSync(join(t.path, "made.chat"), "utf8"),
    /^user:\n\ngo\n[\s\S]*fresh plan\n$/,
  );
  // -o to another file: the conversation still starts empty, -o gets the new messages
  r = await runMain(
    ["agent", "ask", "Planner", "-c", "missing.chat", "-o", "new.chat", "--no-cache", "go"],
    o,
  );
  assert.equal(r.code, 0, r.stderr);
  const saved = readFileSync(join(t.path, "new.chat"), "utf8");
  assert.match(saved, /^user:\n\ngo\n[\s\S]*assistant:\n\nfresh plan\n/);
  // an existing -c file is still followed
  r = await runMain(["agent", "ask", "Planner", "-c", "new.chat", "--no-cache", "again"], o);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(sent(2).map(([role]) => role), ["system", "user", "assistant", "user"]);
  assert.equal(existsSync(join(t.path, "missing.chat")), false); // -o took the turn
  // `llm ask -c` shares the rule (R149-2); with -o elsewhere a missing -c file is an error there
  const l = await runMain(["llm", "ask", "-c", "missing.chat", "-o", "x.chat", "go"], o);
  assert.equal(l.code, 1);
  assert.match(l.stderr, /Chat file not found: "missing\.chat"/);
});

Deno.test("§2.2 step 1: an agent directory typed without ./ loads when no agent has that name", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "by path" }) });
  const o = fixture(t.path, srv);
  const f = await runMain(["agent", "find", "Agent/Planner"], o);
  assert.equal(f.code, 0, f.stderr);
  assert.equal(f.stdout, join(t.path, "Agent", "Planner") + "\n");
  const r = await runMain(["agent", "ask", "Agent/Planner", "plan it", "--no-cache"], o);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), "by path");
  assert.equal(srv.requests.at(-1)!.body.model, "startep-model"); // its start chat applied
  // a name that resolves wins over a directory of the same relative path
  put(t.path, "Agent/Agent/Planner/start_chat", "system: shadow\n");
  const named = await runMain(["agent", "find", "Agent/Planner"], o);
  assert.equal(named.stdout, join(t.path, "Agent", "Agent", "Planner") + "\n");
  // an existing directory without agent files: the error says so
  mkdirSync(join(t.path, "notes", "Empty"), { recursive: true });
  const e = await runMain(["agent", "find", "notes/Empty"], o);
  assert.equal(e.code, 1);
  assert.match(
    e.stderr,
    /No agent found with name notes\/Empty .*exists but holds none of start_chat/,
  );
});

Deno.test("R72-7 agent find PATH: a directory without agent files or a file is an error, as for a name; ask PATH still runs it", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "ran anyway" }) });
  const o = fixture(t.path, srv);
  mkdirSync(join(t.path, "notes", "Empty"), { recursive: true });
  put(t.path, "f.txt", "not an agent\n");
  const find = (arg: string, cwd = t.path) => runMain(["agent", "find", arg], { ...o, cwd });
  const ok = await find("./Agent/Planner");
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout, join(t.path, "Agent", "Planner") + "\n");
  // before: each printed the directory, exit 0 (`agent find /etc` printed /etc)
  const none = (dir: string) =>
    new RegExp(
      `^scout-ai: No agent at ".*": the directory ${dir} exists but holds none of start_chat, `,
    );
  for (
    const [arg, cwd, dir] of [
      ["./notes/Empty", t.path, join(t.path, "notes", "Empty")],
      [join(t.path, "notes"), t.path, join(t.path, "notes")],
      ["..", join(t.path, "notes"), t.path],
    ] as const
  ) {
    const r = await find(arg, cwd);
    assert.equal(r.code, 1, `${arg}: ${r.stdout}`);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, none(dir));
    assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
  }
  // before: 'No agent directory at "./f.txt"', as if nothing were there
  const f = await find("./f.txt");
  assert.equal(f.code, 1);
  assert.match(
    f.stderr,
    /^scout-ai: No agent directory at "\.\/f\.txt": it is a file, not a directory/,
  );
  // §2.3 "loading by path must return an agent": ask warns and runs it
  const a = await runMain(["agent", "ask", "./notes/Empty", "q", "-e", "startep", "--no-cache"], o);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(a.stdout, "ran anyway\n");
  assert.match(a.stderr, /holds no agent files/);
});

Deno.test("§2.2 related lookups: -w, tool: and introduce: find an agent directory's workflow by name", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "ok" }) });
  const o = fixture(t.path, srv);
  put(
    t.path,
    "Agent/Lead/workflow.ts",
    `export default (api) => api.workflow("Lead", {
  title: "Lead tools",
  description: "What the Lead can do",
  tasks: { plan: { type: "string", description: "Plans", inputs: {}, run: () => "planned" } },
});\n`,
  );
  const ask = (args: string[]) =>
    runMain(["llm", "ask", "-e", "startep", "--no-cache", ...args], o);
  let r = await ask(["-w", "Lead", "hi"]);
  assert.equal(r.code, 0, r.stderr);
  const tools = (srv.requests.at(-1)!.body.tools as { function: { name: string } }[])
    .map((x) => x.function.name);
  assert.deepEqual(tools, ["plan"]);
  r = await ask(["introduce: Lead\n\nuser: hi"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(JSON.stringify(srv.requests.at(-1)!.body.messages), /What the Lead can do/);
  // a name that is neither a workflow nor an agent with one: still not found, a usage error (R137-4)
  r = await ask(["-w", "Nobody", "hi"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /-w: Workflow "Nobody" not found \(searched /);
  // an agent directory that cannot be looked at is not "not found" (R72-3): it may hold the workflow
  const loop = join(t.path, "Agent", "Looped");
  symlinkSync(loop, loop);
  r = await ask(["-w", "Looped", "hi"]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, new RegExp(`^scout-ai: Cannot read "${loop}": `));
});

Deno.test("agent ask --json: total_usage adds the specialists' inferences (receipts) to the agent's usage", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({
    fallback: (req) => {
      const msgs = req.body.messages as { role: string; content: string }[];
      const who = msgs[0]!.content;
      const last = msgs.at(-1)!;
      const usage = { pt: 10, ct: 5 };
      if (last.role === "tool") return { text: `${who} done`, usage };
      const next = who === "You are Boss" ? "Worker" : who === "You are Worker" ? "Helper" : null;
      if (next === null) return { text: "helper answer", usage };
      return {
        toolCalls: [{ name: "ask", id: "c1", arguments: { agent: next, prompt: "p" } }],
        usage,
      };
    },
  });
  const o = fixture(t.path, srv);
  for (const name of ["Boss", "Worker"]) {
    put(
      t.path,
      `Agent/${name}/start_chat`,
      `system: You are ${name}\n\nendpoint: startep\n\nsocialize: true\n`,
    );
  }
  put(t.path, "Agent/Helper/start_chat", "system: You are Helper\n\nendpoint: startep\n");
  const r = await runMain(
    ["agent", "ask", "Boss", "--no-cache", "--json", "-o", "n.chat", "go"],
    o,
  );
  assert.equal(r.code, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.equal(j.usage.tt, 30); // the Boss's two inferences
  assert.equal(j.total_usage.tt, 75); // and the Worker's two and the Helper's one
  const prov = await runMain(["llm", "prov", "--json", "n.chat"], o);
  assert.equal(JSON.parse(prov.stdout).nodes[0].tokens.subtree.tt, j.total_usage.tt);
});
