/**
 * When the index of a database is current (R76-10): a TSV file replaced by
 * one of the same size and modification time (`cp -p`, `rsync -a`, `tar x`,
 * `touch -r`) is noticed — the index also records the file's inode and
 * ctime — in this process and in a new one (`kb query` subprocesses, the
 * binary and from source); an
 * index written before those were recorded is rebuilt, not trusted.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { children, closeStores, indexPath, openKnowledgeBase } from "../../src/kb/database.ts";
import { registerDatabase } from "../../src/kb/resolve.ts";
import { openStore } from "../../src/kb/store.ts";
import { buildBinary, runBinary, runScout, tempDir } from "../support/cli.ts";

/** Replaces `tsv` by a file of the same size and mtime with `text` (`cp -p`: the same inode). */
function copyKeepingTimes(tsv: string, text: string): void {
  const before = statSync(tsv);
  const other = tsv + ".new";
  writeFileSync(other, text);
  utimesSync(other, before.atime, before.mtime);
  const cp = new Deno.Command("cp", { args: ["-p", other, tsv] }).outputSync();
  assert.ok(cp.success);
  const after = statSync(tsv);
  assert.deepEqual([after.size, after.mtimeMs, after.ino], [
    before.size,
    before.mtimeMs,
    before.ino,
  ]);
}

Deno.test("a TSV rewritten with the same size and mtime (cp -p, touch -r) rebuilds the index: binary and source", async () => {
  await buildBinary();
  await using d = await tempDir();
  const kbDir = join(d.path, "kb");
  const tsv = join(d.path, "links.tsv");
  writeFileSync(tsv, "#K\tT\tW\na\tb\t1\n");
  registerDatabase(kbDir, "links", tsv);
  const args = ["kb", "query", kbDir, "links", "a"];
  assert.equal((await runBinary(args)).stdout, "a~b\t1\n");
  copyKeepingTimes(tsv, "#K\tT\tW\na\tc\t2\n");
  // before: "a~b\t1" (the stale index) until the file's size or mtime changed
  assert.equal((await runBinary(args)).stdout, "a~c\t2\n");
  // Deno's stat gives ctime in whole seconds: from source, a rewrite is seen a second later
  assert.equal((await runScout(args)).stdout, "a~c\t2\n");
  await new Promise((r) => setTimeout(r, 1100));
  copyKeepingTimes(tsv, "#K\tT\tW\na\td\t3\n");
  assert.equal((await runScout(args)).stdout, "a~d\t3\n");
});

/** A knowledge base in `dir` with one database, `links` (a → b), its index built and read. */
function linksKb(dir: string) {
  const tsv = join(dir, "links.tsv");
  writeFileSync(tsv, "#K\tT\tW\na\tb\t1\n");
  registerDatabase(join(dir, "kb"), "links", tsv);
  const kb = openKnowledgeBase(join(dir, "kb"));
  assert.deepEqual(children(kb, "links", ["a"]), ["a~b"]);
  return { tsv, kb };
}

Deno.test("a TSV renamed over with the same size and mtime (rsync -a, tar x) rebuilds the open index", async () => {
  await using d = await tempDir();
  const { tsv, kb } = linksKb(d.path);
  const before = statSync(tsv);
  const other = join(d.path, ".links.tsv.tmp");
  writeFileSync(other, "#K\tT\tW\na\td\t3\n");
  utimesSync(other, before.atime, before.mtime);
  renameSync(other, tsv); // a new inode, the same size and mtime
  assert.deepEqual(children(kb, "links", ["a"]), ["a~d"]);
  closeStores();
  assert.deepEqual(children(kb, "links", ["a"]), ["a~d"]); // and the index file says so
  closeStores();
});

Deno.test("an index without the inode and ctime (written by the earlier code) is rebuilt", async () => {
  await using d = await tempDir();
  const { tsv, kb } = linksKb(d.path);
  closeStores();
  const idx = indexPath(kb, "links");
  const meta = openStore(idx)!.meta as unknown as Record<string, unknown>;
  closeStores();
  // an index as the earlier code wrote it, for other content: the same size and mtime
  const old = readFileSync(idx, "utf8").replace("a~b\t1", "a~x\t9");
  const footer = JSON.stringify({ ...meta, ino: undefined, ctimeMs: undefined });
  writeFileSync(idx, old.replace(JSON.stringify(meta), footer));
  assert.equal(openStore(idx)?.meta.tsv, tsv, "still a readable index");
  assert.deepEqual(children(kb, "links", ["a"]), ["a~b"]);
  closeStores();
});

Deno.test("a TSV rewritten in place within the same second with the same size (every stat equal) is seen: racy stats are not trusted (R89-2)", async () => {
  await using d = await tempDir();
  // every stat equal needs the rewrite in the second of the first write (Deno's ctime has whole
  // seconds): start at the beginning of a second, and try again if the load pushed it past
  let setup: ReturnType<typeof linksKb> | undefined;
  for (let attempt = 0; attempt < 5 && setup === undefined; attempt++) {
    closeStores();
    while (Date.now() % 1000 > 300) await new Promise((r) => setTimeout(r, 5));
    mkdirSync(join(d.path, String(attempt)));
    const made = linksKb(join(d.path, String(attempt)));
    const before = statSync(made.tsv);
    writeFileSync(made.tsv, "#K\tT\tW\na\tc\t2\n"); // `> file`: the same inode and size
    utimesSync(made.tsv, before.atime, before.mtime); // a 1-second mtime: the same second
    const after = statSync(made.tsv);
    const same = [after.size, after.mtimeMs, after.ino, after.ctimeMs];
    if (
      JSON.stringify(same) ===
        JSON.stringify([before.size, before.mtimeMs, before.ino, before.ctimeMs])
    ) {
      setup = made;
    }
  }
  // not silently passed: without equal stats this test would check nothing
  assert.ok(setup, "could not make a rewrite with every stat equal (a ctime finer than a second?)");
  const { kb } = setup;
  // before: ["a~b"], the stale index, until the TSV changed again
  assert.deepEqual(children(kb, "links", ["a"]), ["a~c"]);
  closeStores();
  assert.deepEqual(children(kb, "links", ["a"]), ["a~c"]); // and from the index file
  closeStores();
});
