/**
 * A TSV whose modification time is in the future (`touch -d`, `tar x` or
 * `rsync -a` from a machine whose clock ran ahead) has its index trusted once
 * built, in the process and in new ones (R112-2): before, its stats never
 * vouched for it (`util/racy_stat.ts` wanted the mtime 2 s in the past) and
 * every query and tool call rebuilt the index. The change time judges it
 * instead, so a rewrite that keeps the future mtime is still seen.
 */
import assert from "node:assert/strict";
import { statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  children,
  closeStores,
  databaseStore,
  indexPath,
  openKnowledgeBase,
} from "../../src/kb/database.ts";
import { registerDatabase } from "../../src/kb/resolve.ts";
import { RACY_MS } from "../../src/util/racy_stat.ts";
import { runScout, tempDir } from "../support/cli.ts";

/** A date set ahead as `touch -d` does, far past any test run's clock. */
const FUTURE = new Date(Date.UTC(2100, 5, 1));

Deno.test("a TSV with a future mtime, unchanged, is indexed once; a rewrite keeping that mtime is seen", async () => {
  await using d = await tempDir();
  const tsv = join(d.path, "links.tsv");
  writeFileSync(tsv, "#K\tT\tW\na\tb\t1\n");
  registerDatabase(join(d.path, "kb"), "links", tsv);
  utimesSync(tsv, FUTURE, FUTURE);
  await new Promise((r) => setTimeout(r, RACY_MS + 100)); // the ctime (the touch) has aged
  const kb = openKnowledgeBase(join(d.path, "kb"));
  assert.deepEqual(children(kb, "links", ["a"]), ["a~b"]);
  const idx = indexPath(kb, "links");
  const built = statSync(idx).ino;
  // before: a new store (and index file) on each call
  assert.equal(databaseStore(kb, "links"), databaseStore(kb, "links"), "kept in the process");
  closeStores();
  assert.deepEqual(children(kb, "links", ["a"]), ["a~b"]);
  closeStores();
  assert.equal(statSync(idx).ino, built, "the index file is reused, not rewritten");
  const r = await runScout(["kb", "query", join(d.path, "kb"), "links", "a"]);
  assert.equal(r.stdout, "a~b\t1\n", r.stderr);
  assert.equal(r.stderr, "");
  assert.equal(statSync(idx).ino, built, "reused by a new process too");
  // the same size in place, the future mtime set back: every stat but the ctime equal
  writeFileSync(tsv, "#K\tT\tW\na\tc\t2\n");
  utimesSync(tsv, FUTURE, FUTURE);
  assert.deepEqual(children(kb, "links", ["a"]), ["a~c"]);
  closeStores();
  assert.equal(
    (await runScout(["kb", "query", join(d.path, "kb"), "links", "a"])).stdout,
    "a~c\t2\n",
  );
});
