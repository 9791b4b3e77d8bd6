/**
 * `llm prov --by agent` on a chat an `agent ask` recorded (R101-3): the
 * specialist an `ask` call named gets its spend, known only from the
 * receipt on the call's output (a plain `-o` chat keeps no society log);
 * a receipt whose call names no agent the tool would run — a name that is
 * not a string, too long, with control characters — stays `unknown`.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { clearAgentCache } from "../../src/agent/load.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { put } from "../support/files.ts";

type Groups = { key: { agent: string }; inferences: number; tokens: { tt: number } }[];

/** `llm prov FILE --by agent --json`: the groups by agent, as `{agent: [n, tt]}`. */
async function byAgent(file: string, o: { env: Record<string, string>; cwd: string }) {
  const r = await runMain(["llm", "prov", file, "--by", "agent", "--json"], o);
  assert.equal(r.code, 0, r.stderr);
  const groups = JSON.parse(r.stdout).rollups[0].groups as Groups;
  return Object.fromEntries(groups.map((g) => [g.key.agent, [g.inferences, g.tokens.tt]]));
}

Deno.test("llm prov --by agent: an ask's receipt-only spend goes to the agent its call named (R101-3)", async () => {
  await using t = await tempDir();
  // Boss asks Worker (conversation w1) once; every inference is billed 15 tokens
  await using srv = await startProviderServer({
    fallback: (req) => {
      const msgs = req.body.messages as { role: string; content: string }[];
      const usage = { pt: 10, ct: 5 };
      if (msgs[0]!.content === "You are Worker") return { text: "worker answer", usage };
      if (msgs.at(-1)!.role === "tool") return { text: "boss done", usage };
      const args = { agent: "Worker", prompt: "p", conversation: "w1" };
      return { toolCalls: [{ name: "ask", id: `c${msgs.length}`, arguments: args }], usage };
    },
  });
  const home = join(t.path, "home");
  put(home, "etc/AI/ep.yaml", `backend: openai\nurl: ${srv.url}\nmodel: m\n`);
  put(t.path, "Agent/Boss/start_chat", "system: You are Boss\n\nendpoint: ep\n\nsocialize: true\n");
  put(t.path, "Agent/Worker/start_chat", "system: You are Worker\n\nendpoint: ep\n");
  clearAgentCache();
  const o = { env: { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" }, cwd: t.path };
  const r = await runMain(["agent", "ask", "Boss", "-o", "cw.chat", "go"], o);
  assert.equal(r.code, 0, r.stderr);
  const file = join(t.path, "cw.chat");
  assert.match(readFileSync(file, "utf8"), /"agent_meta"/);
  assert.deepEqual(await byAgent(file, o), { "(root)": [2, 30], Worker: [1, 15] });
  const shown = await runMain(["llm", "prov", file, "--by", "agent"], o);
  assert.match(shown.stdout, /^Worker +1 +10 +5 +15 /m);
  assert.doesNotMatch(shown.stdout, /unknown/);

  // the same receipt under calls that name no agent the ask tool runs: `unknown`, on one line
  const text = readFileSync(file, "utf8");
  const bad: unknown[] = [42, { x: 1 }, "W".repeat(5000), "Evil\u001b[2J\n\u202e", ""];
  for (const [k, agent] of bad.entries()) {
    const hostile = text.replace('"agent":"Worker"', `"agent":${JSON.stringify(agent)}`);
    assert.notEqual(hostile, text);
    put(t.path, `bad${k}.chat`, hostile);
    const f = join(t.path, `bad${k}.chat`);
    assert.deepEqual(await byAgent(f, o), { "(root)": [2, 30], unknown: [1, 15] }, String(k));
    const table = await runMain(["llm", "prov", f, "--by", "agent"], o);
    assert.equal(table.code, 0, table.stderr);
    assert.equal(table.stdout.split("\n").length, 4, table.stdout); // head, two rows, ""
    // deno-lint-ignore no-control-regex
    assert.doesNotMatch(table.stdout, /[\u0000-\u0009\u000b-\u001f\u202e]/);
  }
});
