/**
 * `-o` on a file system with no free inode (or over its inode quota): the
 * chat is saved by writing a temp file beside it and renaming it over it, and
 * that temp file needs an inode. The check before the ask creates and
 * removes one there, so the run is refused before anything is asked (exit 1,
 * why), as README promises for an `-o` that cannot be written — not after
 * the answer was paid for (R102-9). A real tmpfs, its inodes used up.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { noFreeInodes } from "../support/full_disk.ts";
import { startProviderServer } from "../support/provider_server.ts";

Deno.test("-o on a file system without free inodes is refused before the ask; with inodes again it saves and leaves no temp file (R102-9)", async () => {
  await using d = await tempDir();
  await using srv = await startProviderServer({});
  await using disk = await noFreeInodes((p) => writeFileSync(join(p, "a.chat"), "user: old\n"));
  const chat = join(disk.path, "a.chat");
  const env = { SCOUT_HOME: join(d.path, "home"), OPENAI_API_KEY: "sk-x" };
  const ask = (out: string) =>
    runMain(
      [
        "llm",
        "ask",
        "-b",
        "openai",
        "-O",
        `url=${srv.url}`,
        "-m",
        "m",
        "--no-cache",
        "-o",
        out,
        "q",
      ],
      { env, cwd: d.path },
    );
  srv.script({ text: "the paid answer" });
  for (const out of [chat, join(disk.path, "new.chat"), join(disk.path, "sub", "b.chat")]) {
    const r = await ask(out);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr, `scout-ai: Cannot write -o "${out}": no space left on device\n`);
    assert.equal(r.stdout, "", "nothing was asked, nothing printed");
  }
  assert.equal(srv.requests.length, 0, "nothing was asked"); // before: asked, then not saved
  assert.equal(readFileSync(chat, "utf8"), "user: old\n");
  const names = () => readdirSync(disk.path).sort();
  assert.deepEqual(names(), [".fillers", "a.chat"], "the probe left nothing");
  disk.free();
  const r = await ask(chat);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "the paid answer\n");
  assert.match(readFileSync(chat, "utf8"), /^user: old\n[\s\S]*the paid answer/);
  assert.deepEqual(names(), ["a.chat"]);
});
