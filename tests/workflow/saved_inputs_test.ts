/**
 * The input files a deploy saves for its workers (`deploy/saved_inputs.ts`,
 * R109-1): which values are saved (a file whose content is the value: copied;
 * a `file` input: hard-linked, else copied up to a limit, else recorded) and
 * which only recorded (an absolute name the job digests by content); saving,
 * loading, the saved files standing for the typed values, what changed since
 * (an edit in place of a linked file too), and `workflow batch clean`'s rule
 * for saved directories.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { isScoutError } from "../../src/errors.ts";
import { input } from "../../src/workflow/define.ts";
import type { InputDef } from "../../src/workflow/mod.ts";
import {
  changedInputFile,
  changedSavedFile,
  cleanSavedInputs,
  COPY_LIMIT,
  inputFiles,
  loadSavedInputs,
  originalsChanged,
  planInputFiles,
  savedInUse,
  saveInputFiles,
  withSavedFiles,
} from "../../src/workflow/deploy/mod.ts";
import type { BatchEntry } from "../../src/workflow/deploy/mod.ts";
import { tempDir } from "../support/cli.ts";
import { otherFileSystem } from "../support/other_fs.ts";

const def = (name: string, spec: object): InputDef => ({ ...spec, name }) as InputDef;

/** A job path under `dir` whose `.info` records these inputs, as a run writes them. */
function jobNaming(dir: string, name: string, names: string[], inputs: unknown[]): string {
  mkdirSync(join(dir, "jobs"), { recursive: true });
  const path = join(dir, "jobs", name);
  writeFileSync(path + ".info", JSON.stringify({ status: "done", input_names: names, inputs }));
  return path;
}

const DEFS: InputDef[] = [
  def("text", input.text()),
  def("doc", input.file()),
  def("where", input.path()),
  def("label", input.string({ jobname: true })),
  def("words", input.arrayOf("string")),
  def("raw", input.text({ noload: true })),
];

Deno.test("inputFiles: a loaded value and a file input are saved; an absolute path is recorded; the rest stays as typed", async () => {
  await using d = await tempDir();
  for (const f of ["q.txt", "d.txt", "w.txt", "l.txt", "a.txt", "r.txt"]) {
    writeFileSync(join(d.path, f), f);
  }
  const jobFile = join(d.path, "var/jobs/Wf/task/Default.files/out.txt");
  mkdirSync(join(jobFile, ".."), { recursive: true });
  writeFileSync(jobFile, "out");
  const files = inputFiles(
    {
      text: "q.txt",
      doc: "d.txt",
      where: "w.txt", // a relative path: digested as its name
      label: "l.txt", // the jobname input: as typed
      words: ["a.txt", "not-a-file", "a.txt"],
      raw: join(d.path, "r.txt"), // noload, absolute: digested by its content
      "Wf#task": "q.txt",
    },
    DEFS,
    d.path,
  );
  assert.deepEqual(files.map((f) => [f.input, f.value, f.keep, f.link]), [
    ["text", "q.txt", true, false],
    ["doc", "d.txt", true, true],
    ["words", "a.txt", true, false],
    ["raw", join(d.path, "r.txt"), false, false],
  ]);
  assert.equal(files[0]!.file, join(d.path, "q.txt"));
  // a job's file given to a file input is digested by its place in the store: as typed
  const step = inputFiles({ doc: jobFile, where: join(d.path, "w.txt") }, DEFS, d.path);
  assert.deepEqual(step.map((f) => [f.input, f.keep]), [["where", false]]);
  // a value with a line break is never a file name
  assert.deepEqual(inputFiles({ text: "q.txt\n" }, DEFS, d.path), []);
});

Deno.test("saveInputFiles: a file the task reads is hard-linked, a value's file copied, under the list's digest; loaded back, they stand for the typed values", async () => {
  await using d = await tempDir();
  writeFileSync(join(d.path, "q.txt"), "Question A\n");
  writeFileSync(join(d.path, "d.txt"), "doc A\n");
  writeFileSync(join(d.path, "d.txt.md5"), "feedface\n");
  writeFileSync(join(d.path, "w.txt"), "here\n");
  const provided = { text: "q.txt", doc: "d.txt", where: join(d.path, "w.txt"), words: ["q.txt"] };
  const files = inputFiles(provided, DEFS, d.path);
  const base = join(d.path, "saved");
  const plan = planInputFiles(files, base);
  assert.deepEqual(readdirSync(d.path).includes("saved"), false, "a plan writes nothing");
  const { dir, record, unsaved } = saveInputFiles(files, base);
  assert.equal(dir, plan.dir);
  assert.deepEqual(record, plan.record);
  assert.deepEqual([unsaved, plan.unsaved], [[], []]);
  assert.deepEqual(record.files.map((f) => f.kept), ["copy", "link", undefined, "copy"]);
  assert.deepEqual(readdirSync(base), [dir.slice(base.length + 1)]);
  // the doc is the same inode: no byte of it copied
  const doc = statSync(join(d.path, "d.txt"));
  assert.equal(statSync(join(dir, "files/1/d.txt")).ino, doc.ino);
  assert.equal(doc.nlink, 2);
  assert.notEqual(statSync(join(dir, "files/0/q.txt")).ino, statSync(join(d.path, "q.txt")).ino);
  assert.equal(readFileSync(join(dir, "files/1/d.txt.md5"), "utf8"), "feedface\n");
  // the same files again: the same directory, nothing left behind, not linked again
  assert.equal(saveInputFiles(files, base).dir, dir);
  assert.equal(readdirSync(base).length, 1);
  assert.equal(statSync(join(d.path, "d.txt")).nlink, 2);

  // edited by a rename, or removed: the link keeps the bytes submitted
  writeFileSync(join(d.path, "q.txt"), "Question B\n");
  writeFileSync(join(d.path, "d.new"), "doc B\n");
  renameSync(join(d.path, "d.new"), join(d.path, "d.txt"));
  const loaded = loadSavedInputs(dir);
  assert.deepEqual(loaded, record);
  const swapped = withSavedFiles(provided, loaded, dir);
  assert.equal(readFileSync(swapped.provided.text as string, "utf8"), "Question A\n");
  assert.equal(readFileSync(swapped.provided.doc as string, "utf8"), "doc A\n");
  rmSync(join(d.path, "d.txt"));
  assert.equal(readFileSync(swapped.provided.doc as string, "utf8"), "doc A\n");
  assert.equal(swapped.provided.where, join(d.path, "w.txt"), "a path stays as typed");
  assert.equal(readFileSync((swapped.provided.words as string[])[0]!, "utf8"), "Question A\n");
  assert.deepEqual(
    [...swapped.typedAs.values()].sort(),
    ["d.txt", "q.txt", "q.txt"].sort(),
  );
  assert.equal(changedInputFile(loaded, dir), null, "replaced or removed files do not count");
  writeFileSync(join(d.path, "w.txt"), "elsewhere\n");
  assert.equal(
    changedInputFile(loaded, dir),
    `the input file "${join(d.path, "w.txt")}" (--where) changed since submission`,
  );
  assert.equal(changedSavedFile(loaded, dir), null, "a worker runs on: a path is passed by name");
  rmSync(join(d.path, "w.txt"));
  assert.match(changedInputFile(loaded, dir)!, /\(--where\) is gone since submission$/);
});

Deno.test("withSavedFiles: a file still the one saved is given as named; replaced, edited, or with another .md5, the saved one (R114-2, R122-1); savedInUse: the files a task reads given so", async () => {
  await using d = await tempDir();
  const past = new Date(Date.now() - 3600_000);
  for (
    const [f, text] of [["q.txt", "Question A\n"], ["d.txt", "doc A\n"], ["e.txt", "e\n"]] as const
  ) {
    writeFileSync(join(d.path, f), text);
    utimesSync(join(d.path, f), past, past); // an edit now is another modification time
  }
  writeFileSync(join(d.path, "e.txt.md5"), "feedface\n");
  const provided = { text: "q.txt", doc: "d.txt", words: ["e.txt"] };
  const files = inputFiles(provided, [...DEFS, def("words", input.arrayOf("file"))], d.path);
  const { dir, record } = saveInputFiles(files, join(d.path, "saved"));
  assert.deepEqual(record.files.map((f) => f.kept), ["copy", "link", "link"]);
  const saved = (n: number, f: string) => join(dir, "files", String(n), f);
  const same = withSavedFiles(provided, record, dir);
  assert.deepEqual({ ...same.provided }, provided, "as typed: what a serial run is given");
  assert.equal(same.typedAs.size, 0);
  assert.deepEqual(
    same.originals.map((o) => [o.input, o.file]),
    [["text", "q.txt"], ["doc", "d.txt"], ["words", "e.txt"]].map((
      [i, f],
    ) => [i, join(d.path, f!)]),
  );
  assert.equal(originalsChanged(same.originals), false);
  const job = jobNaming(d.path, "doc", ["doc", "words"], [join(dir, "files/1/d.txt")]);
  assert.deepEqual(savedInUse(record, files, dir, [job]), []);
  // a value's file edited in place to the same size: its MD5 tells; its content is the value
  writeFileSync(join(d.path, "q.txt"), "Question B\n");
  assert.equal(originalsChanged(same.originals), true, "a worker builds its job again");
  const edited = withSavedFiles(provided, record, dir);
  assert.equal(edited.provided.text, saved(0, "q.txt"));
  assert.deepEqual([edited.provided.doc, edited.provided.words], ["d.txt", ["e.txt"]]);
  const text = jobNaming(d.path, "text", ["text"], [join(dir, "files/0/q.txt")]);
  assert.deepEqual(savedInUse(record, files, dir, [text]), [], "a value's file: never by name");
  // a file read with another .md5 beside it: the job's name digests the one saved
  writeFileSync(join(d.path, "e.txt.md5"), "beefcafe\n");
  assert.deepEqual(withSavedFiles(provided, record, dir).provided.words, [saved(2, "e.txt")]);
  // a file read replaced (a new file renamed over it): the link
  writeFileSync(join(d.path, "d.new"), "doc A\n");
  renameSync(join(d.path, "d.new"), join(d.path, "d.txt"));
  const replaced = withSavedFiles(provided, record, dir);
  assert.equal(replaced.provided.doc, saved(1, "d.txt"));
  assert.equal(replaced.typedAs.get(saved(1, "d.txt")), "d.txt");
  assert.deepEqual(replaced.originals, []);
  // named only where a job's .info names the saved file (R118-2)
  assert.deepEqual(savedInUse(record, files, dir, []), [], "no job built");
  const inputsOf = (j: string[]) => savedInUse(record, files, dir, j).map((f) => f.input);
  assert.deepEqual(inputsOf([job]), ["doc"]);
  const both = jobNaming(d.path, "both", ["doc", "words"], [
    join(dir, "files/1/d.txt"),
    [join(dir, "files/2/e.txt")],
  ]);
  assert.deepEqual(inputsOf([both]), ["doc", "words"]);
  const cut = jobNaming(d.path, "cut", ["words"], [[
    "x",
    "...",
    "TRUNCATED only 100 out of 101 shown",
  ]]);
  assert.deepEqual(inputsOf([cut]), ["words"], "a truncated list may name it");
  const asNamed = jobNaming(d.path, "named", ["doc"], [join(d.path, "d.txt")]);
  assert.deepEqual(inputsOf([asNamed, join(d.path, "no-info")]), [], "given the file as named");
});

Deno.test("savedInUse: a linked file edited in place is no saved file, even where a job's .info names its link (R118-2)", async () => {
  await using d = await tempDir();
  writeFileSync(join(d.path, "d.txt"), "doc A\n");
  const files = inputFiles({ doc: "d.txt" }, DEFS, d.path);
  const { dir, record } = saveInputFiles(files, join(d.path, "saved"));
  const job = jobNaming(d.path, "doc", ["doc"], [join(dir, "files/0/d.txt")]);
  appendFileSync(join(d.path, "d.txt"), "more\n"); // the link's bytes too
  assert.equal(
    withSavedFiles({ doc: "d.txt" }, record, dir).provided.doc,
    join(dir, "files/0/d.txt"),
  );
  assert.deepEqual(savedInUse(record, files, dir, [job]), []);
});

Deno.test("changedSavedFile: a linked file edited in place after submission changed the saved bytes: said in one line", async () => {
  await using d = await tempDir();
  const doc = join(d.path, "d.txt");
  writeFileSync(doc, "doc A\n");
  const past = new Date(Date.now() - 3600_000);
  utimesSync(doc, past, past);
  const { dir, record } = saveInputFiles(inputFiles({ doc: "d.txt" }, DEFS, d.path), d.path);
  assert.equal(record.files[0]!.kept, "link");
  assert.equal(changedSavedFile(record, dir), null);
  writeFileSync(doc, "doc B\n"); // the same size, the same inode
  assert.equal(readFileSync(join(dir, "files/0/d.txt"), "utf8"), "doc B\n");
  const why = `the input file "${doc}" (--doc) changed since submission ` +
    "(edited in place: the hard link saved then shares its bytes)";
  assert.equal(changedSavedFile(record, dir), why);
  assert.equal(changedInputFile(record, dir), why);
  // a new submission of the edited file is another list, saved apart
  const again = saveInputFiles(inputFiles({ doc: "d.txt" }, DEFS, d.path), d.path);
  assert.notEqual(again.dir, dir);
  assert.equal(changedSavedFile(again.record, again.dir), null);
});

Deno.test("saveInputFiles: where a link fails (another file system), a file the task reads is copied up to COPY_LIMIT; a larger one only recorded, not copied, and said why", async () => {
  await using d = await tempDir();
  await using other = await otherFileSystem("8m");
  writeFileSync(join(d.path, "d.txt"), "doc A\n" + "x".repeat(5 * 2 ** 20)); // 5 of the 8 MiB
  const big = join(d.path, "big.bam");
  writeFileSync(big, "BAM\n");
  truncateSync(big, COPY_LIMIT + 2 ** 20); // sparse: no disk taken, and more than the tmpfs holds
  const files = inputFiles({ doc: "d.txt", words: ["big.bam"] }, [
    def("doc", input.file()),
    def("words", input.arrayOf("file")),
  ], d.path);
  const base = join(other.path, "inputs");
  const plan = planInputFiles(files, base);
  const { dir, record, unsaved } = saveInputFiles(files, base);
  assert.deepEqual(record.files.map((f) => f.kept), ["copy", "none"]);
  assert.equal(dir, plan.dir);
  assert.deepEqual(record, plan.record);
  // the copy holds every byte (over a MiB: one read at a time, written one after another)
  assert.ok(readFileSync(join(dir, "files/0/d.txt")).equals(readFileSync(join(d.path, "d.txt"))));
  // the same files again: found before anything is copied (a second copy would not fit)
  assert.equal(saveInputFiles(files, base).dir, dir);
  assert.deepEqual(readdirSync(base), [dir.slice(base.length + 1)]);
  assert.notEqual(statSync(join(dir, "files/0/d.txt")).ino, statSync(join(d.path, "d.txt")).ino);
  assert.ok(!existsSync(join(dir, "files/1")), "the large file is not copied");
  assert.deepEqual(unsaved.map((u) => [u.input, u.file]), [["words", big]]);
  assert.match(
    unsaved[0]!.why,
    /^257 MiB, more than the 256 MiB a copy may take, and it cannot be hard-linked into \S+: it is on another file system \(EXDEV\)$/,
  );
  assert.match(plan.unsaved[0]!.why, /: it is on another file system$/);
  // the worker builds the job from the file itself, and stops if it changed
  const swapped = withSavedFiles({ words: ["big.bam"] }, loadSavedInputs(dir), dir);
  assert.deepEqual(swapped.provided.words, ["big.bam"]);
  assert.equal(changedSavedFile(record, dir), null);
  appendFileSync(big, "more");
  assert.equal(
    changedSavedFile(record, dir),
    `the input file "${big}" (--words) changed since submission`,
  );
});

Deno.test("loadSavedInputs: a removed copy or directory says so in one line", async () => {
  await using d = await tempDir();
  writeFileSync(join(d.path, "q.txt"), "Question A\n");
  const { dir } = saveInputFiles(inputFiles({ text: "q.txt" }, DEFS, d.path), d.path);
  rmSync(join(dir, "files/0/q.txt"));
  const gone = (() => {
    try {
      loadSavedInputs(dir);
    } catch (e) {
      return e;
    }
  })();
  assert.ok(isScoutError(gone, "deploy_failed"));
  assert.match(gone.message, /\(a copy of "\S+q\.txt"\) is gone \(was \S+ removed since\?\)$/);
  rmSync(dir, { recursive: true });
  assert.throws(() => loadSavedInputs(dir), /cannot be read: "\S+inputs\.json": /);
});

Deno.test("cleanSavedInputs: removes the directories no batch job left names, once past their grace", async () => {
  await using d = await tempDir();
  const base = join(d.path, "inputs");
  const named = join(base, "a".repeat(32));
  const old = join(base, "b".repeat(32));
  const young = join(base, "c".repeat(32));
  const saving = join(base, ".saving-x1");
  for (const dir of [named, old, young, saving]) mkdirSync(dir, { recursive: true });
  const past = new Date(Date.now() - 2 * 3600_000);
  for (const dir of [named, old, saving]) utimesSync(dir, past, past);
  const live = join(d.path, "SLURM_scout_job-W-t-Default-12345678");
  mkdirSync(live);
  writeFileSync(join(live, "command.batch"), `run --deploy-inputs ${named} --deploy-job x\n`);
  const left = [{ dir: live } as BatchEntry];
  assert.deepEqual(cleanSavedInputs(base, left, { dryRun: true }).sort(), [old, saving].sort());
  assert.equal(readdirSync(base).length, 4, "a dry run removes nothing");
  assert.deepEqual(cleanSavedInputs(base, left).sort(), [old, saving].sort());
  assert.deepEqual(readdirSync(base).sort(), ["a".repeat(32), "c".repeat(32)]);
  assert.ok(statSync(young).isDirectory());
  assert.deepEqual(cleanSavedInputs(join(d.path, "none"), left), []);
});

Deno.test("withSavedFiles keeps an input named __proto__ as a value under Bun (the binary's runtime), as under Deno", () => {
  const root = join(import.meta.dirname!, "../..");
  const script = `import { withSavedFiles } from "./src/workflow/deploy/saved_inputs_use.ts";
import { ownRecord } from "./src/util/own_record.ts";
const provided = ownRecord({ ["__proto__"]: "kept", other: "x" });
const { provided: out } = withSavedFiles(provided, { version: 2, files: [] }, "/nowhere");
console.log(JSON.stringify({ keys: Object.keys(out), proto: Object.getPrototypeOf(out) === null }));`;
  const r = spawnSync(join(root, "tools/node_modules/.bin/bun"), ["-e", script], {
    cwd: root,
    encoding: "utf8",
  });
  assert.equal(r.status, 0, r.stderr);
  // before, under Bun: the plain record's __proto__ setter took the value as its prototype
  assert.deepEqual(JSON.parse(r.stdout), { keys: ["__proto__", "other"], proto: true });
});
