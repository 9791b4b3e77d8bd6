/**
 * stdout and stdin in odd places (review R102), from source and as the built
 * binary, run by a real `bash`: a pipe whose reader starts late gets every
 * byte (R102-1: the binary, whose writes to a pipe are asynchronous, cut it
 * at 64 KiB when it exited a second after the command); stdout on a full
 * device is one line, exit 1 (R102-2); a directory on stdin says it was stdin
 * (R102-12).
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "../../src/chat/parse.ts";
import { buildBinary, homeIn, tempDir } from "../support/cli.ts";
import { type Runner, RUNNERS, sh } from "../support/bash.ts";
import { startProviderServer } from "../support/provider_server.ts";

const WF = `export default (api) => api.workflow("T", { tasks: {
  big: { type: "string", run: () => "y".repeat(200_000) },
} });
`;

async function setup() {
  await buildBinary();
  const dir = await tempDir();
  const answer = "more of a long answer\n".repeat(5_000); // 110 KB
  const srv = await startProviderServer({
    fallback: (req) => ({
      text: String(JSON.stringify(req.body)).includes("LONG") ? answer : "short answer",
    }),
  });
  writeFileSync(join(dir.path, "big.chat"), `user:\n\n${"line\n".repeat(40_000)}`);
  mkdirSync(join(dir.path, "workflows/T"), { recursive: true });
  writeFileSync(join(dir.path, "workflows/T/workflow.ts"), WF);
  mkdirSync(join(dir.path, "a-dir"));
  const env = {
    ...homeIn(dir.path),
    HOME: dir.path,
    OPENAI_API_KEY: "sk-odd",
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
  };
  return {
    dir,
    answer,
    ask: `llm ask -b openai -O url=${srv.url} -m m --no-cache`,
    run: (runner: Runner, script: string) => sh(runner, script, { cwd: dir.path, env }),
    [Symbol.asyncDispose]: async () => {
      await srv.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

/** Each (runner, command) pair, run at once (each waits on its own sleeping reader). */
function everyRunner<T>(
  commands: Record<string, string>,
  run: (runner: Runner, name: string, command: string) => Promise<T>,
): Promise<T[]> {
  return Promise.all(
    (Object.keys(RUNNERS) as Runner[]).flatMap((runner) =>
      Object.entries(commands).map(([name, command]) => run(runner, name, command))
    ),
  );
}

Deno.test("R102-1: a reader that starts reading 3 s late gets all of a large output, exit 0 (chat parse --json, llm ask, workflow task --json)", async () => {
  await using t = await setup();
  const commands = {
    chat: "scout chat parse big.chat --json",
    llm: `scout ${t.ask} "LONG question"`,
    workflow: "scout workflow task T big --json",
  };
  await everyRunner(commands, async (runner, name, command) => {
    const r = await t.run(
      runner,
      `${command} | wc -c
       ${command} | (sleep 3; wc -c); echo "\${PIPESTATUS[0]}"`,
    );
    const [all, late, status] = r.stdout.trim().split(/\s+/).map(Number);
    const what = `${runner} ${name}: ${r.stderr}`;
    assert.ok(all! > 100_000, what);
    assert.deepEqual([late, status], [all, 0], what);
    if (name === "llm") assert.equal(all, t.answer.length + 1, what);
  });
});

Deno.test("R102-2: stdout on a full device is one line, exit 1; a chat saved with -o is still saved", async () => {
  await using t = await setup();
  const commands = {
    chat: "scout chat parse big.chat --json",
    llm: `scout ${t.ask} "short question"`,
    workflow: "scout workflow task T big --json",
    saved: `scout ${t.ask} -o saved-$RUNNER.chat "short question"`,
  };
  await everyRunner(commands, async (runner, name, command) => {
    const r = await t.run(runner, `RUNNER=${runner}; ${command} > /dev/full`);
    const what = `${runner} ${name}`;
    assert.equal(r.stderr, "scout-ai: Cannot write stdout: no space left on device\n", what);
    assert.equal(r.code, 1, what);
  });
  for (const runner of Object.keys(RUNNERS)) {
    const saved = parse(Deno.readTextFileSync(join(t.dir.path, `saved-${runner}.chat`)));
    assert.deepEqual(
      saved.filter((m) => m.role !== "meta" && m.content !== "").map((m) => [m.role, m.content]),
      [["user", "short question"], ["assistant", "short answer"]],
      runner,
    );
  }
});

Deno.test("R102-12: a directory on stdin: 'Cannot read stdin: it is a directory', exit 1", async () => {
  await using t = await setup();
  const commands = { chat: "scout chat parse -", llm: `scout ${t.ask} -c - x` };
  await everyRunner(commands, async (runner, name, command) => {
    const r = await t.run(runner, `${command} < a-dir`);
    const what = `${runner} ${name}`;
    assert.equal(r.stderr, "scout-ai: Cannot read stdin: it is a directory\n", what);
    assert.equal(r.code, 1, what);
  });
});
