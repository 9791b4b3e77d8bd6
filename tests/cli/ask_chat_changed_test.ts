/**
 * Two runs continuing one chat at once (`-c cw.chat -o cw.chat`, R101-4):
 * the second run's turn lands while the first waits for its provider. The
 * first is then answered without that turn: it says so on stderr when it
 * appends, and its meta records' chat totals (`_c`, inference.md §4.1/§4.3)
 * are rebased on the file's last ones, so every `_c` in the file is the
 * running sum of the records. Two real processes, the first one's reply held
 * by the loopback provider until the second has ended. A chat that does not
 * exist yet (`-c new.chat -o new.chat`, the help's idiom) is read as empty and
 * checked the same way, by `llm ask` and `agent ask` alike (R132-2).
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "../../src/chat/parse.ts";
import { parseMeta } from "../../src/chat/meta.ts";
import { runScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

const KEYS = ["pt", "ct", "tt", "cct", "cwt", "rt"] as const;

/** Each meta's `_c` against the running sum of the records up to it. */
function totalsAgainstSums(text: string): { c: number[]; sums: number[] }[] {
  const out: { c: number[]; sums: number[] }[] = [];
  const sums = KEYS.map(() => 0);
  for (const m of parse(text)) {
    if (m.role !== "meta") continue;
    const r = parseMeta(String(m.content));
    KEYS.forEach((k, i) => sums[i]! += Number(r[k] ?? 0));
    out.push({ c: KEYS.map((k) => Number(r[`${k}_c`])), sums: [...sums] });
  }
  return out;
}

Deno.test("two asks on one chat at once: the later append warns and rebases its _c on the file (R101-4)", async () => {
  await using t = await tempDir();
  let release!: () => void;
  const held = new Promise<void>((r) => release = r);
  const usage: Record<string, { pt: number; ct: number }> = {
    q0: { pt: 3, ct: 1 },
    q1: { pt: 20, ct: 7 },
    q2: { pt: 100, ct: 50 },
  };
  await using srv = await startProviderServer({
    fallback: (req) => {
      const msgs = req.body.messages as { role: string; content: string }[];
      const q = msgs.at(-1)!.content;
      return { text: `answer ${q}`, usage: usage[q]!, ...(q === "q1" ? { until: held } : {}) };
    },
  });
  const home = join(t.path, "home");
  mkdirSync(join(home, "etc", "AI"), { recursive: true });
  writeFileSync(join(home, "etc/AI/ep.yaml"), `backend: openai\nurl: ${srv.url}\nmodel: m\n`);
  const o = { env: { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" }, cwd: t.path };
  const ask = (q: string) =>
    runScout(["llm", "ask", "-e", "ep", "--no-stream", "-c", "cw.chat", "-o", "cw.chat", q], o);
  const first = await ask("q0");
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stderr, "");

  const one = ask("q1"); // held by the provider once it asks
  while (!srv.requests.some((r) => JSON.stringify(r.body).includes('"q1"'))) {
    await new Promise((r) => setTimeout(r, 20));
  }
  const two = await ask("q2");
  assert.equal(two.code, 0, two.stderr);
  assert.equal(two.stderr, ""); // nothing changed under it
  release();
  const r = await one;
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stderr.trim(),
    'scout-ai: warning: "cw.chat" changed while this ask ran (another run appended to it): ' +
      "this turn was answered without it",
  );

  const text = readFileSync(join(t.path, "cw.chat"), "utf8");
  // both turns whole, q2's before q1's (q1 was appended last)
  assert.deepEqual(
    parse(text).filter((m) => m.role === "user" || m.role === "assistant").map((m) =>
      String(m.content).trim()
    ).filter((c) => c !== ""), // the parser's leading empty message
    ["q0", "answer q0", "q2", "answer q2", "q1", "answer q1"],
  );
  const metas = totalsAgainstSums(text);
  assert.equal(metas.length, 3);
  for (const m of metas) assert.deepEqual(m.c, m.sums);
  assert.deepEqual(metas.at(-1)!.c, [123, 58, 181, 0, 0, 0]);
});

/**
 * Two runs of `cmd` (`-c new.chat -o new.chat`) on a chat that does not exist
 * yet: the first held by the provider until the second has ended; returns
 * the first's result and the chat written.
 */
async function raceOnNewChat(cmd: string[], agent = false) {
  await using t = await tempDir();
  let release!: () => void;
  const held = new Promise<void>((r) => release = r);
  const usage: Record<string, { pt: number; ct: number }> = {
    go0: { pt: 100, ct: 10 },
    go1: { pt: 1000, ct: 100 },
  };
  await using srv = await startProviderServer({
    fallback: (req) => {
      const msgs = req.body.messages as { role: string; content: string }[];
      const q = msgs.at(-1)!.content;
      return { text: `answer ${q}`, usage: usage[q]!, ...(q === "go0" ? { until: held } : {}) };
    },
  });
  const home = join(t.path, "home");
  mkdirSync(join(home, "etc", "AI"), { recursive: true });
  writeFileSync(join(home, "etc/AI/ep.yaml"), `backend: openai\nurl: ${srv.url}\nmodel: m\n`);
  if (agent) {
    mkdirSync(join(t.path, "Agent", "Boss"), { recursive: true });
    writeFileSync(join(t.path, "Agent/Boss/start_chat"), "system: You lead\n");
  }
  const o = { env: { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" }, cwd: t.path };
  const ask = (q: string) =>
    runScout([...cmd, "-e", "ep", "--no-stream", "-c", "new.chat", "-o", "new.chat", q], o);
  assert.equal(existsSync(join(t.path, "new.chat")), false);
  const one = ask("go0"); // held by the provider once it asks
  while (!srv.requests.some((r) => JSON.stringify(r.body).includes('"go0"'))) {
    await new Promise((r) => setTimeout(r, 20));
  }
  const two = await ask("go1");
  assert.equal(two.code, 0, two.stderr);
  assert.equal(two.stderr, ""); // the chat it read (none) is the one it appends to
  release();
  const first = await one;
  return { first, text: readFileSync(join(t.path, "new.chat"), "utf8") };
}

for (
  const [name, cmd, agent] of [
    ["llm ask", ["llm", "ask"], false],
    ["agent ask", ["agent", "ask", "Boss", "--no-cache"], true],
  ] as const
) {
  Deno.test(`${name} -c F -o F, F new: two runs at once, the later append warns and rebases _c (R132-2)`, async () => {
    const { first, text } = await raceOnNewChat([...cmd], agent);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(
      first.stderr.trim(),
      'scout-ai: warning: "new.chat" changed while this ask ran (another run appended to it): ' +
        "this turn was answered without it",
    );
    const metas = totalsAgainstSums(text);
    assert.equal(metas.length, 2);
    for (const m of metas) assert.deepEqual(m.c, m.sums);
    assert.deepEqual(metas.at(-1)!.c, [1100, 110, 1210, 0, 0, 0]);
  });
}
