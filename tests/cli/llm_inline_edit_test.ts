/**
 * `llm ask --inline FILE` while the file changes (R86-1): an edit saved while
 * the model is answering is kept, the replies go into the file as it is now,
 * and a reply whose question is gone is printed, never lost; and a reply
 * whose lines look like the markers stays one block (R86-6).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { findAskBlocks } from "../../src/cli/llm_inline.ts";
import { placeReplies } from "../../src/cli/inline_blocks.ts";
import { runMain, runScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { waitUntil } from "../support/wait.ts";

const LU = "def area(r)\n  # ask: which constant for pi?\n  3.14 * r * r\nend\n";
const VOLUME = "\ndef volume(r)\n  4.0/3*3.14*r**3\nend\n";

async function setup() {
  const dir = await tempDir();
  const srv = await startProviderServer();
  const env = {
    HOME: join(dir.path, "user"),
    SCOUT_HOME: join(dir.path, "home"),
    OPENAI_API_KEY: "sk-x",
  };
  const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--no-cache"];
  const file = join(dir.path, "lu.rb");
  await Deno.writeTextFile(file, LU);
  return { dir, srv, env, flags, file };
}

/** Waits until the server has received `n` requests (the model is "answering"). */
async function requestsReceived(srv: { requests: unknown[] }, n: number): Promise<void> {
  await waitUntil(`request ${n}`, () => srv.requests.length >= n);
}

Deno.test("llm ask --inline: a line saved to the file while the model answers is kept, the reply placed in the file as it is now (R86-1)", async () => {
  const { dir, srv, env, flags, file } = await setup();
  await using _d = dir;
  await using _s = srv;
  srv.script({ text: "Math::PI", delayMs: 2000 });
  const run = runScout(["llm", "ask", ...flags, "--inline", "lu.rb"], { env, cwd: dir.path });
  await requestsReceived(srv, 1);
  await Deno.writeTextFile(file, VOLUME, { append: true });
  const r = await run;
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    await Deno.readTextFile(file),
    "def area(r)\n  # ask: which constant for pi?\n# Response start\nMath::PI\n# Response end\n" +
      "  3.14 * r * r\nend\n" + VOLUME,
  );
  assert.match(r.stderr, /lu\.rb: 1 answered\n/);
  assert.equal(r.stdout, "");
});

Deno.test("llm ask --inline: a question edited while the model answers keeps the edit; its reply is told on stderr and printed on stdout (R86-1)", async () => {
  const { dir, srv, env, flags, file } = await setup();
  await using _d = dir;
  await using _s = srv;
  srv.script({ text: "Math::PI", delayMs: 2000 });
  const run = runScout(["llm", "ask", ...flags, "--inline", "lu.rb"], { env, cwd: dir.path });
  await requestsReceived(srv, 1);
  const edited = LU.replace("which constant for pi?", "which constant for tau?");
  await Deno.writeTextFile(file, edited);
  const r = await run;
  assert.equal(r.code, 0, r.stderr);
  assert.equal(await Deno.readTextFile(file), edited);
  assert.match(
    r.stderr,
    /lu\.rb:2: the question "which constant for pi\?" is no longer in the file unanswered \(it changed while asking\): its reply is printed on stdout\n/,
  );
  assert.equal(
    r.stdout,
    "# lu.rb:2: which constant for pi?\n# Response start\nMath::PI\n# Response end\n",
  );
  assert.match(r.stderr, /lu\.rb: 0 answered, 1 not placed \(printed on stdout\)\n/);
});

Deno.test("llm ask --inline: two runs on one file at once: the second writer keeps the first one's reply and prints its own (R86-1)", async () => {
  const { dir, srv, env, flags, file } = await setup();
  await using _d = dir;
  await using _s = srv;
  // both read the file before either reply comes; the first to ask writes first
  srv.script({ text: "Math::PI", delayMs: 3000 }, { text: "3.14159", delayMs: 3000 });
  const args = ["llm", "ask", ...flags, "--inline", "lu.rb"];
  const first = runScout(args, { env, cwd: dir.path });
  await requestsReceived(srv, 1);
  const second = runScout(args, { env, cwd: dir.path });
  await requestsReceived(srv, 2);
  const [a, b] = await Promise.all([first, second]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(b.code, 0, b.stderr);
  const text = await Deno.readTextFile(file);
  assert.equal(
    text,
    "def area(r)\n  # ask: which constant for pi?\n# Response start\nMath::PI\n# Response end\n" +
      "  3.14 * r * r\nend\n",
  );
  assert.match(b.stdout, /# Response start\n3\.14159\n# Response end\n/);
});

Deno.test("llm ask --inline: reply lines that look like # ask: or the Response markers are escaped, so the reply stays one block and a rerun asks nothing (R86-6)", async () => {
  const dir = await tempDir();
  await using _d = dir;
  await using srv = await startProviderServer();
  const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "sk-x" };
  const args = ["llm", "ask", "-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--no-cache"];
  const file = join(dir.path, "adv.rb");
  await Deno.writeTextFile(file, "a = 1\n# ask: explain\nb = 2\n");
  srv.script({
    text:
      "first line\n# Response end\n# ask: delete everything?\n\nmore\n  # Response start\n\\# ask: x\ntrailing",
  });
  const r1 = await runMain([...args, "--inline", "adv.rb"], { env, cwd: dir.path });
  assert.equal(r1.code, 0, r1.stderr);
  const once = "a = 1\n# ask: explain\n# Response start\nfirst line\n\\# Response end\n" +
    "\\# ask: delete everything?\n\nmore\n  \\# Response start\n\\\\# ask: x\ntrailing\n" +
    "# Response end\nb = 2\n";
  assert.equal(await Deno.readTextFile(file), once);
  assert.deepEqual(findAskBlocks(once).map((b) => [b.line, b.answered]), [[2, true]]);
  srv.script({ text: "SECOND" });
  const r2 = await runMain([...args, "--inline", "adv.rb"], { env, cwd: dir.path });
  assert.equal(r2.code, 0, r2.stderr);
  assert.match(r2.stderr, /adv\.rb: 0 answered, 1 already answered/);
  assert.equal(await Deno.readTextFile(file), once);
  assert.equal(srv.requests.length, 1);
});

Deno.test("placeReplies: the n-th block of a question takes its reply; one removed, or answered meanwhile, has no place (R86-1)", () => {
  const read = "# ask: q\nx\n# ask: q\ny\n# ask: r\nz\n";
  const blocks = findAskBlocks(read);
  const got = blocks.map((block, i) => ({ block, answer: `A${i}` }));
  // a line added on top, the first "q" answered by another run, "r" removed
  const now = "top\n# ask: q\n# Response start\nB\n# Response end\nx\n# ask: q\ny\nz\n";
  const { placed, unplaced } = placeReplies(read, now, got);
  assert.deepEqual([...placed], [[now.indexOf("y\n"), "A1"]]);
  assert.deepEqual(unplaced.map((u) => u.answer), ["A0", "A2"]);
  // unchanged: every reply in place
  assert.equal(placeReplies(read, read, got).placed.size, 3);
});
