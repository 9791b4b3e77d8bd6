/**
 * Agents whose `agent.ts` files load each other (R82-1): a load that would
 * run an `agent.ts` of a directory still loading is refused with one
 * `agent_load` error naming the cycle and the line of the `loadAgent` call
 * that closes it — from the real CLI (a subprocess, killed when it outlives
 * its time: before the fix it recursed without end, deaf to SIGTERM), and
 * in-process. The chain belongs to one load: concurrent loads of the same
 * agents, and loads made later (a hand-off handler loading lazily, at run
 * time), are no cycle.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { clearAgentCache, loadAgent } from "../../src/agent/load.ts";
import { spawnScout, tempDir } from "../support/cli.ts";
import { put } from "../support/files.ts";

/** An `agent.ts` that loads `other` at load time and hands off to it. */
const eager = (other: string) =>
  `export default async (api, me) => {
  const other = await api.loadAgent(${JSON.stringify(other)});
  api.delegate(me, other, ${JSON.stringify(other)}, "Hand work over");
};
`;

/** Alpha ↔ Beta under `<dir>/home/Agent/`, each handing off to the other at load time. */
function pair(dir: string): string {
  const home = join(dir, "home");
  for (const [me, other] of [["Alpha", "Beta"], ["Beta", "Alpha"]] as const) {
    put(home, `Agent/${me}/start_chat`, `system: You are ${me}\n`);
    put(home, `Agent/${me}/agent.ts`, eager(other));
  }
  return home;
}

/** Runs the CLI from source; a run outliving `ms` is killed (SIGKILL: it may ignore SIGTERM). */
async function scoutWithin(
  ms: number,
  args: string[],
  opts: { env: Record<string, string>; cwd: string },
): Promise<{ code: number | null; stderr: string; killed: boolean }> {
  const child = spawnScout(args, { cwd: opts.cwd, env: opts.env, stdout: "null" });
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill("SIGKILL");
  }, ms);
  try {
    const out = await child.output();
    return { code: killed ? null : out.code, stderr: new TextDecoder().decode(out.stderr), killed };
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("agent ask: two agent.ts loading each other fail at once naming the cycle and the line (R82-1)", async () => {
  await using t = await tempDir();
  const home = pair(t.path);
  const env = { SCOUT_HOME: home };
  const r = await scoutWithin(30_000, ["agent", "ask", "Alpha", "hello"], { env, cwd: t.path });
  assert.equal(r.killed, false, "agent ask Alpha did not end within 30 s");
  assert.equal(r.code, 1, r.stderr);
  const lines = r.stderr.trim().split("\n");
  assert.equal(lines.length, 1, r.stderr);
  const beta = join(home, "Agent", "Beta", "agent.ts");
  assert.equal(
    lines[0],
    `scout-ai: Agent cycle: Alpha → Beta → Alpha: the agent.ts of Beta loads Alpha, which is ` +
      `still loading; let one agent.ts load the other and wire both ways ` +
      `(api.delegate(me, other, …) and api.delegate(other, me, …)) (${beta}:2)`,
  );
});

Deno.test("loadAgent: the cycle error is typed, names the chain and the closing call; by path too (R82-1)", async () => {
  await using t = await tempDir();
  clearAgentCache();
  const home = pair(t.path);
  // Gamma loads itself by path: a cycle of one
  put(home, "Agent/Gamma/start_chat", "system: You are Gamma\n");
  put(
    home,
    "Agent/Gamma/agent.ts",
    `export default async (api) => {\n  await api.loadAgent(new URL(".", import.meta.url).pathname);\n};\n`,
  );
  const opts = { env: { SCOUT_HOME: home }, cwd: t.path, warn: () => {} };
  await assert.rejects(() => loadAgent("Beta", opts), (e: Error & Record<string, unknown>) => {
    assert.equal(e.code, "agent_load");
    assert.deepEqual(e.cycle, ["Beta", "Alpha", "Beta"]);
    assert.match(e.message, /^Agent cycle: Beta → Alpha → Beta: the agent\.ts of Alpha loads Beta/);
    assert.equal(e.file, join(home, "Agent", "Alpha", "agent.ts"));
    assert.equal(e.line, 2);
    return true;
  });
  await assert.rejects(() => loadAgent("Gamma", opts), (e: Error & Record<string, unknown>) => {
    assert.deepEqual(e.cycle, ["Gamma", "Gamma"]);
    assert.equal(e.file, join(home, "Agent", "Gamma", "agent.ts"));
    return true;
  });
});

Deno.test("loadAgent: concurrent loads of the same agents, and a lazy load at run time, are no cycle (R82-1)", async () => {
  await using t = await tempDir();
  clearAgentCache();
  const home = join(t.path, "home");
  // Lead loads Aide at load time; Aide loads nothing
  put(home, "Agent/Lead/start_chat", "system: You are Lead\n");
  put(home, "Agent/Lead/agent.ts", eager("Aide"));
  put(home, "Agent/Aide/start_chat", "system: You are Aide\n");
  // Ping and Pong load each other only when a handler runs (after their loads ended)
  for (const [me, other] of [["Ping", "Pong"], ["Pong", "Ping"]] as const) {
    put(home, `Agent/${me}/start_chat`, `system: You are ${me}\n`);
    put(
      home,
      `Agent/${me}/agent.ts`,
      `export default (api, me) => {\n  me.options.other = () => api.loadAgent(${
        JSON.stringify(other)
      });\n};\n`,
    );
  }
  const opts = { env: { SCOUT_HOME: home }, cwd: t.path, warn: () => {} };
  const leads = await Promise.all([1, 2, 3].map(() => loadAgent("Lead", opts)));
  for (const lead of leads) assert.ok("hand_off_to_Aide" in (lead.options.tools as object));
  const ping = await loadAgent("Ping", opts);
  const pong = await (ping.options.other as () => Promise<typeof ping>)();
  assert.equal(pong.name, "Pong");
  const ping2 = await (pong.options.other as () => Promise<typeof ping>)();
  assert.equal(ping2.name, "Ping");
});
