/**
 * `scout-ai` in shell pipelines (review R81), from source and as the built
 * binary, run by a real `bash`: a closed stdout (`| true`, `| head -1`) does
 * not lose a chat saved with `-o`.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parse } from "../../src/chat/parse.ts";
import {
  BINARY,
  buildBinary,
  type CliResult,
  DENO,
  SCOUT_SOURCE_ARGS,
  tempDir,
} from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

/** The two ways to run `scout-ai`, as a bash function's body. */
const RUNNERS: Record<string, readonly string[]> = {
  source: [DENO, ...SCOUT_SOURCE_ARGS],
  binary: [BINARY],
};

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** Runs `script` in bash, with `scout` the given runner's `scout-ai`. */
async function sh(
  runner: string,
  script: string,
  o: { cwd: string; env: Record<string, string> },
): Promise<CliResult> {
  const fn = `scout() { ${RUNNERS[runner]!.map(quote).join(" ")} "$@"; }\n`;
  const out = await new Deno.Command("bash", {
    args: ["-c", fn + script],
    cwd: o.cwd,
    env: { NO_COLOR: "1", ...o.env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** The chat's messages that have text, as [role, content], meta lines left out. */
function said(file: string): [string, unknown][] {
  return parse(readFileSync(file, "utf8"))
    .filter((m) => m.role !== "meta" && m.content !== "")
    .map((m) => [m.role, m.content]);
}

async function setup() {
  await buildBinary();
  const dir = await tempDir();
  const answer = "first line\n" + "more of a long answer\n".repeat(20_000); // ~440 KB: fills any pipe
  const srv = await startProviderServer({
    fallback: (req) => ({
      text: String(JSON.stringify(req.body)).includes("LONG") ? answer : "short answer",
    }),
  });
  const put = (rel: string, text: string) => {
    mkdirSync(dirname(join(dir.path, rel)), { recursive: true });
    writeFileSync(join(dir.path, rel), text);
  };
  put("Agent/Plain/start_chat", "system: You are plain\n\nbackend: openai\n\nmodel: m\n");
  put(
    "Agent/Plain/agent.ts",
    `export default (_api, agent) => { agent.options.url = "${srv.url}"; };\n`,
  );
  const env = {
    SCOUT_HOME: join(dir.path, "home"),
    HOME: dir.path,
    OPENAI_API_KEY: "sk-pipe",
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
  };
  const flags = `-b openai -O url=${srv.url} -m m --no-cache`;
  return {
    dir,
    srv,
    answer,
    flags,
    run: (runner: string, script: string) => sh(runner, script, { cwd: dir.path, env }),
    [Symbol.asyncDispose]: async () => {
      await srv.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

Deno.test("R81-1: a streamed answer is saved to -o when stdout's reader is gone (| true, | head -1); exit 0", async () => {
  await using t = await setup();
  for (const runner of Object.keys(RUNNERS)) {
    const at = (f: string) => join(t.dir.path, `${runner}-${f}`);
    const r = await t.run(
      runner,
      `scout llm ask --stream ${t.flags} -o ${runner}-s.chat "short question" | true
       echo "s=\${PIPESTATUS[0]}"
       scout llm ask --stream ${t.flags} -o ${runner}-long.chat "LONG question" | head -1
       echo "long=\${PIPESTATUS[0]}"
       scout agent ask Plain --stream --no-cache -o ${runner}-agent.chat "LONG one" | head -1
       echo "agent=\${PIPESTATUS[0]}"`,
    );
    assert.equal(
      r.stdout,
      "s=0\nfirst line\nlong=0\nfirst line\nagent=0\n",
      `${runner}: ${r.stderr}`,
    );
    assert.equal(r.stderr, "", runner);
    assert.deepEqual(said(at("s.chat")), [["user", "short question"], [
      "assistant",
      "short answer",
    ]]);
    assert.deepEqual(said(at("long.chat")), [["user", "LONG question"], [
      "assistant",
      t.answer.trimEnd(),
    ]]);
    assert.deepEqual(said(at("agent.chat")), [["user", "LONG one"], [
      "assistant",
      t.answer.trimEnd(),
    ]]);
  }
});
