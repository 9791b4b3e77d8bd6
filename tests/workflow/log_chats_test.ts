/**
 * A job's log chats (`src/workflow/files.ts`): the one walker of
 * `P.files/log/**` that the task route (`jobLogChatsSync`) and provenance
 * (`directJobChatFiles`) share, with `provenance.md` §3's rules — dot names
 * skipped, symlinked directories not descended, symlinks to chats kept as
 * their target, dangling ones and directories named `x.chat` dropped, UTF-8
 * byte order.
 */
import assert from "node:assert/strict";
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { jobLogChatFiles, jobLogChats, jobLogChatsSync } from "../../src/workflow/files.ts";
import { directJobChatFiles } from "../../src/provenance/jobs.ts";
import { tempDir } from "../support/cli.ts";
import { isScoutError } from "../../src/errors.ts";

Deno.test("log chats: dot names, symlinks, directories named .chat and byte order", async () => {
  await using d = await tempDir();
  const base = realpathSync(d.path);
  const job = join(base, "jobs", "WF", "t", "Default");
  const log = job + ".files/log";
  const chat = (rel: string) => {
    mkdirSync(join(log, rel, ".."), { recursive: true });
    writeFileSync(join(log, rel), "user:\n\nhi\n");
  };
  chat("agent.chat");
  chat("society/Critic/default.chat");
  chat("notes.txt/kept.chat"); // a directory with a file-like name is still walked
  chat("x.chat/inner.chat"); // a directory named x.chat is no chat, its chats are
  chat("\u{1F600}.chat"); // after U+E000 in UTF-8 bytes, before it in UTF-16 units
  chat("\uE000.chat");
  chat(".hidden.chat"); // dot names are skipped…
  chat(".old/stale.chat"); // …and so are dot directories
  const outside = join(base, "elsewhere");
  mkdirSync(join(outside, "dir"), { recursive: true });
  writeFileSync(join(outside, "real.chat"), "user:\n\nhi\n");
  writeFileSync(join(outside, "dir", "deep.chat"), "user:\n\nhi\n");
  symlinkSync(join(outside, "real.chat"), join(log, "linked.chat")); // kept, as its target
  symlinkSync(join(outside, "gone.chat"), join(log, "dangling.chat")); // dropped
  symlinkSync(join(outside, "dir"), join(log, "linkdir")); // not descended
  symlinkSync(join(outside, "dir"), join(log, "linkdir.chat")); // a directory: no chat

  const want = [
    join(outside, "real.chat"),
    join(log, "agent.chat"),
    join(log, "notes.txt", "kept.chat"),
    join(log, "society", "Critic", "default.chat"),
    join(log, "x.chat", "inner.chat"),
    join(log, "\uE000.chat"),
    join(log, "\u{1F600}.chat"),
  ];
  assert.deepEqual(jobLogChatFiles(job), { files: want, errors: [], skipped: [] });
  assert.deepEqual(jobLogChatsSync(job), want);
  assert.deepEqual(await jobLogChats(job), want);
  assert.deepEqual(
    directJobChatFiles(job),
    { files: want, errors: [], skipped: [] },
    "provenance walks alike",
  );
});

Deno.test("log chats: none without a log directory; a log that cannot be listed is said", async () => {
  await using d = await tempDir();
  const job = join(d.path, "WF", "t", "Default");
  assert.deepEqual(jobLogChatFiles(job), { files: [], errors: [], skipped: [] });
  assert.deepEqual(jobLogChatsSync(job), []);
  // provenance.md §2.3: an existing but unlistable log directory is an error, not an empty log
  mkdirSync(job + ".files", { recursive: true });
  writeFileSync(job + ".files/log", "a file, not a directory");
  const r = jobLogChatFiles(job);
  assert.deepEqual([r.files, r.errors.map((e) => e.dir)], [[], [job + ".files/log"]]);
  assert.throws(
    () => jobLogChatsSync(job),
    (e) => isScoutError(e, "io") && e.file === job + ".files/log",
  );
});

Deno.test("log chats: a file whose name is not UTF-8 is named as such, not read as missing (R150-3)", async () => {
  await using d = await tempDir();
  const job = join(realpathSync(d.path), "jobs", "WF", "t", "Default");
  const log = job + ".files/log";
  mkdirSync(log, { recursive: true });
  writeFileSync(join(log, "ok.chat"), "user:\n\nhi\n");
  // a name of the bytes ff fe: JavaScript's paths are strings, so the shell makes it
  const made = new Deno.Command("sh", {
    args: ["-c", `printf 'meta: pt=5 ct=5 tt=10\\n' > "$1/$(printf '\\377\\376').chat"`, "sh", log],
  }).outputSync();
  assert.ok(made.success, new TextDecoder().decode(made.stderr));
  const found = jobLogChatFiles(job);
  assert.deepEqual(found.files, [join(log, "ok.chat")]);
  assert.equal(found.errors.length, 1);
  assert.equal(found.errors[0]!.dir, log);
  assert.match(found.errors[0]!.message, /is not valid UTF-8.*rename it/);
});
