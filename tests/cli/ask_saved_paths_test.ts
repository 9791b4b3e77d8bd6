/**
 * The `-f`/`-i` paths an `-o` chat saves (R111-fpath): a relative path is
 * written relative to the chat's own directory, so the saved chat names the
 * same file wherever it is continued or compiled from — its own folder, the
 * directory the ask ran in, a third one (chat.md §5.3's first candidate finds
 * it). Real processes (`cli.ts` from source) in temp directories, the
 * loopback provider answering.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "../../src/chat/parse.ts";
import { savedRef } from "../../src/cli/ask_new_part.ts";
import { type CliResult, runScout, tempDir } from "../support/cli.ts";
import { type ProviderServer, startProviderServer } from "../support/provider_server.ts";
import { put } from "../support/files.ts";

/** A temp tree `w/{a,b/out,c}` with `a/notes.md` and `a/sys.chat`, the provider, a runner. */
async function setup() {
  const t = await tempDir();
  const srv: ProviderServer = await startProviderServer({
    fallback: () => ({ text: "Noted." }),
  });
  const home = join(t.path, "home");
  put(home, "etc/AI/ep.yaml", `backend: openai\nurl: ${srv.url}\nmodel: m\n`);
  put(t.path, "w/a/notes.md", "THE NOTES OF A\n");
  put(t.path, "w/a/sys.chat", "system: THE SYSTEM OF A\n");
  put(t.path, "w/a/Agent/Planner/start_chat", "system: You plan\n\nendpoint: ep\n");
  mkdirSync(join(t.path, "w/a/out"), { recursive: true });
  mkdirSync(join(t.path, "w/c"), { recursive: true });
  const env = { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" };
  return {
    w: join(t.path, "w"),
    home,
    srv,
    /** `scout-ai ARGS` run in `w/<dir>`. */
    run: (dir: string, args: string[]): Promise<CliResult> =>
      runScout(args, { env, cwd: join(t.path, "w", dir) }),
    [Symbol.asyncDispose]: async () => {
      await srv.close();
      await t[Symbol.asyncDispose]();
    },
  };
}

const ASK = ["llm", "ask", "-e", "ep", "--no-stream", "--no-cache"];

/** The saved chat's `role: content` lines for the given roles. */
function savedRefs(path: string, roles: string[]): string[] {
  return parse(readFileSync(path, "utf8"))
    .filter((m) => roles.includes(m.role))
    .map((m) => `${m.role}: ${m.content}`);
}

Deno.test("-f with -o in another directory: the saved chat continues from its folder and from a third one", async () => {
  await using t = await setup();
  const r = await t.run("a", [...ASK, "-f", "notes.md", "-o", "out/x.chat", "Summarise"]);
  assert.equal(r.code, 0, r.stderr);
  // this ask's own request is as before: the file named as typed
  const sent = (t.srv.requests[0]!.body as { messages: { content: string }[] }).messages;
  assert.equal(sent[0]!.content, '<file name="notes.md">\nTHE NOTES OF A\n\n</file>');
  for (
    const [dir, chat] of [["a/out", "x.chat"], ["c", "../a/out/x.chat"], ["a", "out/x.chat"]]
  ) {
    const d = await t.run(dir!, [...ASK, "-c", chat!, "--dry-run", "more"]);
    assert.equal(d.code, 0, `from ${dir}: ${d.stderr}`);
    assert.match(d.stdout, /THE NOTES OF A/, `from ${dir}`);
  }
  assert.deepEqual(savedRefs(join(t.w, "a/out/x.chat"), ["file"]), ["file: ../notes.md"]);
  // continued in place from its own folder: the next turn's file is named from there too
  const c = await t.run("a/out", [
    ...ASK,
    "-c",
    "x.chat",
    "-o",
    "x.chat",
    "-f",
    "../sys.chat",
    "go",
  ]);
  assert.equal(c.code, 0, c.stderr);
  assert.deepEqual(savedRefs(join(t.w, "a/out/x.chat"), ["file"]), [
    "file: ../notes.md",
    "file: ../sys.chat",
  ]);
});

Deno.test("-i with -o in another directory: the import is found from the chat's folder and a third one; agent ask too", async () => {
  await using t = await setup();
  const r = await t.run("a", [...ASK, "-i", "sys.chat", "-o", "out/x.chat", "Hello"]);
  assert.equal(r.code, 0, r.stderr);
  const sent = (t.srv.requests[0]!.body as { messages: { content: string }[] }).messages;
  assert.equal(sent[0]!.content, "THE SYSTEM OF A");
  for (const [dir, chat] of [["a/out", "x.chat"], ["c", "../a/out/x.chat"]]) {
    const d = await t.run(dir!, [...ASK, "-c", chat!, "--dry-run", "more"]);
    assert.equal(d.code, 0, `from ${dir}: ${d.stderr}`);
    assert.match(d.stdout, /THE SYSTEM OF A/, `from ${dir}`);
  }
  assert.deepEqual(savedRefs(join(t.w, "a/out/x.chat"), ["import"]), ["import: ../sys.chat"]);
  // agent ask saves through the same turn
  const a = await t.run("a", [
    "agent",
    "ask",
    "Planner",
    "--no-cache",
    "-f",
    "notes.md",
    "-i",
    "sys.chat",
    "-o",
    "../c/y.chat",
    "Plan",
  ]);
  assert.equal(a.code, 0, a.stderr);
  assert.deepEqual(savedRefs(join(t.w, "c/y.chat"), ["import", "file"]), [
    "import: ../a/sys.chat",
    "file: ../a/notes.md",
  ]);
  const d = await t.run("c", [...ASK, "-c", "y.chat", "--dry-run", "more"]);
  assert.equal(d.code, 0, d.stderr);
  assert.match(d.stdout, /THE SYSTEM OF A[\s\S]*THE NOTES OF A/);
});

Deno.test("a file of the same name next to the -o chat does not take the place of the one given", async () => {
  await using t = await setup();
  put(t.w, "b/out/notes.md", "A SHADOW IN B\n");
  const r = await t.run("a", [...ASK, "-f", "notes.md", "-o", "../b/out/x.chat", "Summarise"]);
  assert.equal(r.code, 0, r.stderr);
  for (const [dir, chat] of [["b/out", "x.chat"], ["a", "../b/out/x.chat"]]) {
    const d = await t.run(dir!, [...ASK, "-c", chat!, "--dry-run", "more"]);
    assert.equal(d.code, 0, `from ${dir}: ${d.stderr}`);
    assert.match(d.stdout, /THE NOTES OF A/, `from ${dir}`);
    assert.doesNotMatch(d.stdout, /A SHADOW IN B/, `from ${dir}`);
  }
});

Deno.test("an -o chat in the working directory keeps each path as typed; absolute paths and names found in chats/ too", async () => {
  await using t = await setup();
  put(t.home, "chats/lib.chat", "system: FROM THE LIBRARY\n");
  const abs = join(t.w, "a/notes.md");
  const r = await t.run("a", [
    ...ASK,
    "-f",
    "./notes.md",
    "-i",
    "out/../sys.chat",
    "-o",
    "x.chat",
    "Hi",
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(savedRefs(join(t.w, "a/x.chat"), ["import", "file"]), [
    "import: out/../sys.chat",
    "file: ./notes.md",
  ]);
  const o = await t.run("a", [...ASK, "-f", abs, "-i", "lib.chat", "-o", "out/y.chat", "Hi"]);
  assert.equal(o.code, 0, o.stderr);
  assert.deepEqual(savedRefs(join(t.w, "a/out/y.chat"), ["import", "file"]), [
    "import: lib.chat",
    `file: ${abs}`,
  ]);
});

Deno.test("-o to a FIFO keeps the paths as typed: where its text goes is not known", async () => {
  await using t = await setup();
  const fifo = join(t.w, "a/out/p.chat");
  assert(new Deno.Command("mkfifo", { args: [fifo] }).outputSync().success, "mkfifo");
  const cat = new Deno.Command("cat", { args: [fifo], stdout: "piped" }).spawn();
  const r = await t.run("a", [...ASK, "-f", "notes.md", "-o", "out/p.chat", "Hi"]);
  assert.equal(r.code, 0, r.stderr);
  const read = new TextDecoder().decode((await cat.output()).stdout);
  assert.deepEqual(parse(read).filter((m) => m.role === "file").map((m) => m.content), [
    "notes.md",
  ]);
});

Deno.test("savedRef: relative to the chat's directory; as typed in the cwd, absolute, ~/, -, a URL", () => {
  assert.equal(savedRef("notes.md", "/w/a", "/w/a/out"), "../notes.md");
  assert.equal(savedRef("./d/notes.md", "/w/a", "/w/c"), "../a/d/notes.md");
  assert.equal(savedRef("../b/n.md", "/w/a", "/w/a/out/deep"), "../../../b/n.md");
  assert.equal(savedRef("sub/n.md", "/w/a", "/w/a/sub"), "n.md");
  for (const ref of ["./notes.md", "out/../notes.md", "notes.md"]) {
    assert.equal(savedRef(ref, "/w/a", "/w/a/"), ref); // the chat in the cwd: byte for byte
  }
  for (const ref of ["/abs/n.md", "~/n.md", "~", "-", "https://example.org/n.md"]) {
    assert.equal(savedRef(ref, "/w/a", "/w/a/out"), ref);
  }
});
