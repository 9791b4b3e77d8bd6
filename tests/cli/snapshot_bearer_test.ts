/**
 * A `bearer` option of an endpoint is a credential as `api_key` is (R146-5):
 * a failed request's snapshot (`$SCOUT_HOME/tmp/ask/*.options.json`) shows
 * it `[REDACTED]`, and it is on no file or output.
 */
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

Deno.test("ask snapshot: an endpoint's bearer option is [REDACTED] like its api_key and x-goog-api-key (R146-5)", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({
    fallback: () => ({ status: 500, message: "boom" }),
  });
  const home = join(t.path, "home");
  mkdirSync(join(home, "etc", "AI"), { recursive: true });
  writeFileSync(
    join(home, "etc", "AI", "sec.yaml"),
    `backend: openai\nmodel: m\nurl: ${srv.url}\nmax_retries: 0\n` +
      "api_key: CANARY-apikey\nx-goog-api-key: CANARY-goog\nbearer: CANARY-bearerparam\n",
  );
  const r = await runScout(["llm", "ask", "-e", "sec", "--no-stream", "hi"], {
    env: { SCOUT_HOME: home, HOME: t.path, OPENAI_KEY: "sk-test" },
    cwd: t.path,
  });
  assert.equal(r.code, 1, r.stderr);
  const dir = join(home, "tmp", "ask");
  const file = readdirSync(dir).find((f) => f.endsWith(".options.json"));
  assert.ok(file !== undefined, "a failure snapshot was written");
  const text = readFileSync(join(dir, file), "utf8");
  const options = JSON.parse(text);
  assert.equal(options.api_key, "[REDACTED]");
  assert.equal(options["x-goog-api-key"], "[REDACTED]");
  assert.equal(options.bearer, "[REDACTED]");
  for (const s of ["CANARY-apikey", "CANARY-goog", "CANARY-bearerparam"]) {
    assert.ok(!text.includes(s), `${s} in ${file}`);
    assert.ok(!r.stdout.includes(s) && !r.stderr.includes(s), `${s} in the output`);
  }
});
