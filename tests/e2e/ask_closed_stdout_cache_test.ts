/**
 * An answer that has arrived is stored in the inference cache though
 * stdout's reader is gone (R161): `scout-ai llm ask --stream … | true` (or
 * `| head -c1`) prints the answer once its response is complete — to a pipe
 * text is held until then — and that write ends the process (EPIPE, under
 * the Bun binary before the round had stored its entry); the next identical
 * ask is then answered from the cache, the provider asked once. From source
 * and as the built binary, in a real `bash`, against the loopback provider.
 */
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { buildBinary, tempDir } from "../support/cli.ts";
import { type Runner, RUNNERS, sh } from "../support/bash.ts";
import { startProviderServer } from "../support/provider_server.ts";

const SHORT = "the short answer";
const LONG = "first line\n" + "more of a long answer\n".repeat(5_000) + "end"; // 110 KB: past a pipe's

Deno.test("R161: an answer in when stdout's reader went (| true, | head -c1) is stored: the next ask asks nobody", async () => {
  await buildBinary();
  await using dir = await tempDir();
  await using srv = await startProviderServer({
    fallback: (req) => ({ text: JSON.stringify(req.body).includes("LONG") ? LONG : SHORT }),
  });
  for (const runner of Object.keys(RUNNERS) as Runner[]) {
    const cases = [["short", "true", SHORT], ["LONG", "head -c1", LONG]] as const;
    for (const [question, cut, answer] of cases) {
      const home = join(dir.path, `${runner}-${question}`);
      const env = { SCOUT_HOME: home, HOME: dir.path, PATH: Deno.env.get("PATH") ?? "/bin" };
      const ask = `scout llm ask -b openai -O url=${srv.url} -m m`;
      const before = srv.requests.length;
      const r = await sh(
        runner,
        `${ask} --stream "${question} question" | ${cut} >/dev/null
         echo "first=\${PIPESTATUS[0]}"
         ${ask} "${question} question"`,
        { cwd: dir.path, env },
      );
      const what = `${runner}, | ${cut}`;
      assert.equal(r.stderr, "", what);
      assert.equal(r.stdout, `first=0\n${answer}\n`, what);
      assert.equal(srv.requests.length - before, 1, `${what}: the provider asked once`);
      const cache = join(home, "var", "cache", "ask");
      const left = readdirSync(cache).filter((n) => !n.startsWith("."));
      assert.deepEqual(left.map((n) => n.replace(/^[0-9a-f]{64}/, "<key>")), ["<key>.json"], what);
    }
  }
});
