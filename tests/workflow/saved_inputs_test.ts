/**
 * The input files a deploy saves for its workers (`deploy/saved_inputs.ts`,
 * R109-1): which values are copied (a file whose content is the value, a
 * `file` input) and which only recorded (an absolute name the job digests by
 * content); saving, loading, the copies standing for the typed values, what
 * changed since, and `workflow batch clean`'s rule for saved directories.
 */
import assert from "node:assert/strict";
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { isScoutError } from "../../src/errors.ts";
import { input } from "../../src/workflow/define.ts";
import type { InputDef } from "../../src/workflow/mod.ts";
import {
  changedInputFile,
  cleanSavedInputs,
  inputFiles,
  loadSavedInputs,
  planInputFiles,
  saveInputFiles,
  withSavedFiles,
} from "../../src/workflow/deploy/mod.ts";
import type { BatchEntry } from "../../src/workflow/deploy/mod.ts";
import { tempDir } from "../support/cli.ts";

const def = (name: string, spec: object): InputDef => ({ ...spec, name }) as InputDef;

const DEFS: InputDef[] = [
  def("text", input.text()),
  def("doc", input.file()),
  def("where", input.path()),
  def("label", input.string({ jobname: true })),
  def("words", input.arrayOf("string")),
  def("raw", input.text({ noload: true })),
];

Deno.test("inputFiles: a loaded value and a file input are copied; an absolute path is recorded; the rest stays as typed", async () => {
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
  assert.deepEqual(files.map((f) => [f.input, f.value, f.keep]), [
    ["text", "q.txt", true],
    ["doc", "d.txt", true],
    ["words", "a.txt", true],
    ["raw", join(d.path, "r.txt"), false],
  ]);
  assert.equal(files[0]!.file, join(d.path, "q.txt"));
  // a job's file given to a file input is digested by its place in the store: as typed
  const step = inputFiles({ doc: jobFile, where: join(d.path, "w.txt") }, DEFS, d.path);
  assert.deepEqual(step.map((f) => [f.input, f.keep]), [["where", false]]);
  // a value with a line break is never a file name
  assert.deepEqual(inputFiles({ text: "q.txt\n" }, DEFS, d.path), []);
});

Deno.test("saveInputFiles: copies and a list, under the list's digest; loaded back, the copies stand for the typed values", async () => {
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
  const { dir, record } = saveInputFiles(files, base);
  assert.equal(dir, plan.dir);
  assert.deepEqual(record, plan.record);
  assert.deepEqual(readdirSync(base), [dir.slice(base.length + 1)]);
  assert.equal(readFileSync(join(dir, "files/1/d.txt.md5"), "utf8"), "feedface\n");
  // the same files again: the same directory, nothing left behind
  assert.equal(saveInputFiles(files, base).dir, dir);
  assert.equal(readdirSync(base).length, 1);

  writeFileSync(join(d.path, "q.txt"), "Question B\n");
  rmSync(join(d.path, "d.txt"));
  const loaded = loadSavedInputs(dir);
  assert.deepEqual(loaded, record);
  const swapped = withSavedFiles(provided, loaded, dir);
  assert.equal(readFileSync(swapped.provided.text as string, "utf8"), "Question A\n");
  assert.equal(readFileSync(swapped.provided.doc as string, "utf8"), "doc A\n");
  assert.equal(swapped.provided.where, join(d.path, "w.txt"), "a path stays as typed");
  assert.equal(readFileSync((swapped.provided.words as string[])[0]!, "utf8"), "Question A\n");
  assert.deepEqual(
    [...swapped.typedAs.values()].sort(),
    ["d.txt", "q.txt", "q.txt"].sort(),
  );
  assert.equal(changedInputFile(loaded), null, "copied files never count as changed");
  writeFileSync(join(d.path, "w.txt"), "elsewhere\n");
  assert.equal(
    changedInputFile(loaded),
    `the input file "${join(d.path, "w.txt")}" (--where) changed since submission`,
  );
  rmSync(join(d.path, "w.txt"));
  assert.match(changedInputFile(loaded)!, /\(--where\) is gone since submission$/);
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
