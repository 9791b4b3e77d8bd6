import assert from "node:assert/strict";
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import {
  associationDetails,
  children,
  closeStores,
  databaseStore,
  indexPath,
  openKnowledgeBase,
  parents,
} from "../../src/kb/database.ts";
import { isScoutError } from "../../src/errors.ts";
import { registerDatabase } from "../../src/kb/resolve.ts";
import { openStore } from "../../src/kb/store.ts";
import { RACY_MS } from "../../src/util/racy_stat.ts";
import { ROOT, tempDir } from "../support/cli.ts";
import { generateTsv } from "./generate.ts";

const FAMILY = join(ROOT, "fixtures", "kb", "family");

async function familyKb(dir: string) {
  registerDatabase(dir, "parents", join(FAMILY, "parents"));
  registerDatabase(dir, "siblings", join(FAMILY, "siblings"), { undirected: true });
  registerDatabase(dir, "marriages", join(FAMILY, "marriages"));
  return await Promise.resolve(openKnowledgeBase(dir));
}

Deno.test("children, parents (keys reversed, as Ruby returns them) and undirected partners", async () => {
  await using d = await tempDir();
  const kb = await familyKb(d.path);
  assert.deepEqual(children(kb, "parents", ["Eva", "Ada", "Nobody"]), [
    "Eva~Fede",
    "Eva~Gala",
    "Ada~Bruno",
    "Ada~Carla",
  ]);
  assert.deepEqual(parents(kb, "parents", ["Carla"]), ["Carla~Ada", "Carla~Dani"]);
  assert.deepEqual(children(kb, "parents", ["Carla"]), []);
  // undirected: both orientations; the shape of Ruby's test (['Isa~Miki', 'Miki~Isa', 'Guille~Clei'])
  assert.deepEqual(children(kb, "siblings", ["Ada", "Dani", "Hugo"]), [
    "Ada~Dani",
    "Dani~Ada",
    "Hugo~Eva",
  ]);
  assert.deepEqual(parents(kb, "siblings", ["Dani"]), ["Dani~Ada"]);
  // an entity that is a prefix of another matches only itself
  assert.deepEqual(children(kb, "parents", ["Ad"]), []);
});

Deno.test("details: field maps, selected fields, unknown keys omitted, reversed keys found", async () => {
  await using d = await tempDir();
  const kb = await familyKb(d.path);
  assert.deepEqual(associationDetails(kb, "marriages", ["Bruno~Carla", "Bruno~Gala"]), {
    "Bruno~Carla": { Year: "1990", Place: "León" },
  });
  assert.deepEqual(associationDetails(kb, "marriages", ["Fede~Gala"], ["Place", "Year"]), {
    "Fede~Gala": ["Vigo", "1995"],
  });
  assert.deepEqual(associationDetails(kb, "parents", ["Carla~Dani"]), {
    "Carla~Dani": { "Type of parent": "mother" },
  });
  assert.throws(
    () => associationDetails(kb, "marriages", ["Fede~Gala"], ["Wife"]),
    /Unknown field "Wife" of database "marriages" \(fields: Year, Place\)/,
  );
});

Deno.test("the index is built once, next to the KB, and rebuilt when the TSV or the options change", async () => {
  await using d = await tempDir();
  const tsv = join(d.path, "links.tsv");
  writeFileSync(tsv, "#K\tT\tW\na\tb\t1\n");
  registerDatabase(join(d.path, "kb"), "links", tsv);
  let kb = openKnowledgeBase(join(d.path, "kb"));
  assert.deepEqual(children(kb, "links", ["a"]), ["a~b"]);
  const idx = indexPath(kb, "links");
  assert.equal(idx, join(d.path, "kb", ".scout-ai-index", "links.idx"));
  const built = readFileSync(idx);
  // a TSV changed within RACY_MS of its read is read again (R89-2); once aged, the index is kept
  assert.notEqual(databaseStore(kb, "links"), databaseStore(kb, "links"));
  await new Promise((r) => setTimeout(r, RACY_MS + 50));
  assert.equal(databaseStore(kb, "links"), databaseStore(kb, "links")); // cached, not rebuilt
  // same size, new content and mtime → rebuilt
  writeFileSync(tsv, "#K\tT\tW\na\tc\t2\n");
  utimesSync(tsv, new Date(), new Date(Date.now() + 5000));
  assert.deepEqual(children(kb, "links", ["a"]), ["a~c"]);
  assert.notDeepEqual(readFileSync(idx), built);
  // options change (undirected) → rebuilt with both orientations
  registerDatabase(join(d.path, "kb"), "links", tsv, { undirected: true });
  kb = openKnowledgeBase(join(d.path, "kb"));
  assert.deepEqual(children(kb, "links", ["c"]), ["c~a"]);
  // duplicate keys: the last row wins (Scout's put)
  writeFileSync(tsv, "#K\tT\tW\na\tb\tfirst\nx\ty\t0\na\tb\tlast\n");
  utimesSync(tsv, new Date(), new Date(Date.now() + 20000));
  registerDatabase(join(d.path, "kb"), "links", tsv);
  kb = openKnowledgeBase(join(d.path, "kb"));
  assert.deepEqual(children(kb, "links", ["a"]), ["a~b"]);
  assert.deepEqual(associationDetails(kb, "links", ["a~b"]), { "a~b": { W: "last" } });
  // no temp files left behind
  assert.deepEqual(readdirSync(join(d.path, "kb", ".scout-ai-index")), ["links.idx"]);
});

Deno.test("a truncated index is never taken for complete; a failed rebuild keeps no partial index", async () => {
  await using d = await tempDir();
  const tsv = join(d.path, "links.tsv");
  writeFileSync(tsv, "#K\tT\tW\na\tb\t1\nb\tc\t2\n");
  registerDatabase(join(d.path, "kb"), "links", tsv);
  const kb = openKnowledgeBase(join(d.path, "kb"));
  const idx = indexPath(kb, "links");
  children(kb, "links", ["a"]);
  closeStores();
  const size = readFileSync(idx).length;
  truncateSync(idx, size - 5);
  assert.equal(openStore(idx), null);
  assert.deepEqual(children(kb, "links", ["b"]), ["b~c"]); // rebuilt
  assert.equal(readFileSync(idx).length, size);
  closeStores();
  writeFileSync(tsv, "#K\tT\tW\na\tb\t1\nragged\n");
  utimesSync(tsv, new Date(), new Date(Date.now() + 9000));
  assert.throws(() => children(kb, "links", ["a"]), (e: Error & { line?: number }) => {
    assert.match(e.message, /Row has 1 columns, the header has 3/);
    assert.equal(e.line, 3);
    return true;
  });
  // no temp file left; the old index says what it was built from, so it is not used
  assert.deepEqual(readdirSync(join(d.path, "kb", ".scout-ai-index")), ["links.idx"]);
  assert.notEqual(openStore(idx)?.meta.size, readFileSync(tsv).length);
  assert.throws(() => children(kb, "links", ["a"]), /Row has 1 columns/);
});

Deno.test("an index that is there but unreadable is an io error naming it, not a missing one", async () => {
  await using d = await tempDir();
  assert.equal(openStore(join(d.path, "none.idx")), null);
  const dir = join(d.path, "links.idx");
  mkdirSync(dir); // opens, but every read fails (EISDIR)
  assert.throws(
    () => openStore(dir),
    (e) =>
      isScoutError(e, "io") && e.file === dir &&
      /Cannot read the index .*links\.idx/.test(e.message),
  );
  const file = join(d.path, "plain");
  writeFileSync(file, "");
  const under = join(file, "x.idx"); // ENOTDIR: cannot be opened
  assert.throws(() => openStore(under), (e) => isScoutError(e, "io") && e.file === under);
});

Deno.test("100,000 generated associations with fields: every query agrees with the file", async () => {
  await using d = await tempDir();
  const tsv = join(d.path, "big.tsv");
  const { expected, sources } = generateTsv(tsv, 100_000, { keep: true, seed: 7 });
  assert.equal(expected.length, 100_000);
  registerDatabase(join(d.path, "kb"), "big", tsv);
  const kb = openKnowledgeBase(join(d.path, "kb"));
  const bySource = new Map<string, string[]>();
  const byTarget = new Map<string, string[]>();
  for (const e of expected) {
    bySource.set(e.source, [...(bySource.get(e.source) ?? []), `${e.source}~${e.target}`]);
    byTarget.set(e.target, [...(byTarget.get(e.target) ?? []), `${e.target}~${e.source}`]);
  }
  const sample = sources.filter((_, i) => i % 97 === 0);
  assert.deepEqual(children(kb, "big", sample), sample.flatMap((s) => bySource.get(s)!.sort()));
  const targets = [...byTarget.keys()].filter((_, i) => i % 53 === 0);
  assert.deepEqual(parents(kb, "big", targets), targets.flatMap((t) => byTarget.get(t)!.sort()));
  const picks = expected.filter((_, i) => i % 997 === 0);
  const details = associationDetails(kb, "big", picks.map((e) => `${e.source}~${e.target}`));
  assert.deepEqual(
    details,
    Object.fromEntries(
      picks.map((e) => [`${e.source}~${e.target}`, { Score: e.score, Evidence: e.evidence }]),
    ),
  );
  assert.equal(databaseStore(kb, "big").meta.count, 100_000);
});
