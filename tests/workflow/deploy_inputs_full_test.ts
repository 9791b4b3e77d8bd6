/**
 * A full disk where a deploy saves its input files (R117-2): `TMPDIR` for a
 * local run, `--batch-dir` for SLURM, each a real small tmpfs. A copy, a
 * `<file>.md5` sidecar or the list that cannot be written fails the run in
 * the one line every other save failure has — `Cannot save input file "F"
 * (--x) for the workers in DIR: no space left on device` — never with the
 * runtime's bare `No space left on device (os error 28)`, and leaves nothing
 * behind.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runScout, tempDir } from "../support/cli.ts";
import { fullDisk } from "../support/full_disk.ts";
import { otherFileSystem } from "../support/other_fs.ts";
import { userWorkflow } from "./cli_support.ts";
import { standInSlurm } from "./deploy_fixtures.ts";

const LEN = `import { readFileSync } from "node:fs";
export default (api) => api.workflow("Len", { tasks: {
  len: { type: "string", inputs: { bam: api.input.file() },
    run: ({ bam }) => String(readFileSync(bam).length) },
} });
`;

/** `workflow task Len len --bam <bam> …extra` from `dir`, in a subprocess. */
function len(dir: string, bam: string, extra: string[], env: Record<string, string>) {
  const wf = userWorkflow(dir, "Len", LEN);
  return runScout(["workflow", "task", wf, "len", "--bam", bam, ...extra], {
    cwd: dir,
    env: { SCOUT_HOME: join(dir, "home"), NO_COLOR: "1", ...env },
  });
}

/** The one line of a failed save: what could not be saved, where, and why. */
function saveFailed(r: { code: number; stderr: string }, what: string, where: string): void {
  assert.equal(r.code, 1, r.stderr);
  const re = new RegExp(
    `^scout-ai: Cannot save ${what} for the workers in ${where}: no space left on device\n$`,
  );
  assert.match(r.stderr, re);
}

/** A 2 MiB file in `dir`: more than the 1 MiB tmpfs holds, so a copy of it cannot be made. */
function bigFile(dir: string): string {
  const bam = join(dir, "reads.bam");
  writeFileSync(bam, new Uint8Array(2 * 2 ** 20).fill(7));
  return bam;
}

Deno.test("local deploy, TMPDIR on a small full file system: the input's copy that does not fit fails the run naming the file, the input and the directory (R117-2)", async () => {
  await using d = await tempDir();
  await using tmp = await otherFileSystem("1m"); // another file system: the file is copied
  const bam = bigFile(d.path);
  const r = await len(d.path, "reads.bam", ["--deploy", "local"], { TMPDIR: tmp.path });
  saveFailed(r, `input file "${bam}" \\(--bam\\)`, `${tmp.path}/scout-ai-inputs-\\w+`);
  assert.deepEqual(readdirSync(tmp.path), [], "nothing left behind");
});

Deno.test("slurm deploy, --batch-dir on a small full file system: the input's copy that does not fit fails the submission naming the file, the input and the directory; nothing submitted (R117-2)", async () => {
  await using d = await tempDir();
  await using batch = await otherFileSystem("1m");
  const bam = bigFile(d.path);
  const r = await len(d.path, "reads.bam", ["--deploy", "slurm", "--batch-dir", batch.path], {
    PATH: `${standInSlurm(d.path)}:${process.env.PATH}`,
  });
  saveFailed(r, `input file "${bam}" \\(--bam\\)`, `${batch.path}/inputs`);
  assert.deepEqual(readdirSync(join(batch.path, "inputs")), [], "nothing left behind");
  assert.ok(!existsSync(join(d.path, "sbatch.calls")), "nothing submitted");
});

Deno.test("local deploy, TMPDIR full on the file system of the input: its link is made, its .md5 beside it cannot be written: said as a save failure (R117-2)", async () => {
  await using d = await tempDir();
  await using disk = await fullDisk((p) => {
    writeFileSync(join(p, "d.txt"), "doc\n");
    writeFileSync(join(p, "d.txt.md5"), "feedface\n");
  });
  const doc = join(disk.path, "d.txt");
  const r = await len(d.path, doc, ["--deploy", "local"], { TMPDIR: disk.path });
  saveFailed(r, `input file "${doc}" \\(--bam\\)`, `${disk.path}/scout-ai-inputs-\\w+`);
  assert.deepEqual(readdirSync(disk.path).sort(), [".filler", "d.txt", "d.txt.md5"]);
});

Deno.test("local deploy, TMPDIR full on the file system of the input: its link is made, the list cannot be written: said naming it and the directory (R117-2)", async () => {
  await using d = await tempDir();
  await using disk = await fullDisk((p) => writeFileSync(join(p, "d.txt"), "doc\n"));
  const r = await len(d.path, join(disk.path, "d.txt"), ["--deploy", "local"], {
    TMPDIR: disk.path,
  });
  saveFailed(
    r,
    "the list of input files \\(inputs\\.json\\)",
    `${disk.path}/scout-ai-inputs-\\w+`,
  );
  assert.deepEqual(readdirSync(disk.path).sort(), [".filler", "d.txt"]);
});
