/**
 * What becomes of the directories of saved input files (`saved_inputs.ts`)
 * of `--deploy slurm`, under `<batch base>/inputs/`: a dry run shows the
 * commands that would save them, and `workflow batch clean` removes those no
 * batch job that may still run names.
 *
 * @module
 */
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { shellQuote } from "../../util/shell_words.ts";
import type { BatchEntry } from "./batch_status.ts";
import { RECORD, type SavedInputs } from "./saved_inputs.ts";

/** How long a saved directory no batch job names is kept: a deploy may be about to name it. */
export const SAVED_GRACE_MS = 60 * 60 * 1000;

/**
 * Where a SLURM deploy saves input files: `<batch base>/inputs`.
 *
 * @param base the batch base directory
 * @returns the directory
 */
export function savedInputsBase(base: string): string {
  return join(base, "inputs");
}

/**
 * The lines of a dry run's script that save the files as a real run would:
 * each link (`ln -L`, through a symbolic link as a real run does) or copy, a
 * comment for a file only recorded, then the list.
 *
 * @param plan the directory and the list (`planInputFiles`)
 * @returns bash lines
 */
export function savedInputsScript(plan: { dir: string; record: SavedInputs }): string[] {
  const { dir, record } = plan;
  const q = shellQuote;
  const lines = ["# The input files, hard-linked or copied for the batch jobs (they read these)"];
  for (const f of record.files) {
    if (f.kept === "none") lines.push(`# not saved (recorded): ${f.file.replace(/\n/g, " ")}`);
    if (f.saved === undefined) continue;
    const dest = join(dir, f.saved);
    const save = f.kept === "link" ? "ln -L" : "cp";
    lines.push(`mkdir -p ${q(dirname(dest))}`, `${save} -- ${q(f.file)} ${q(dest)}`);
    if (f.sideMd5 !== undefined) lines.push(`cp -- ${q(f.file + ".md5")} ${q(dest + ".md5")}`);
  }
  lines.push(`mkdir -p ${q(dir)}`);
  lines.push(`printf '%s\\n' ${q(JSON.stringify(record))} > ${q(join(dir, RECORD))}`);
  return lines;
}

/**
 * Removes the saved directories under `base` (`<batch base>/inputs`) that no
 * batch directory left names in its `command.batch`, once older than
 * {@link SAVED_GRACE_MS} (and what a deploy that died while saving left).
 *
 * @param base where the saved directories are
 * @param left the batch directories that stay
 * @param opts `dryRun`: remove nothing; `now` (ms)
 * @returns the removed (or, dry, removable) directories
 */
export function cleanSavedInputs(
  base: string,
  left: readonly BatchEntry[],
  opts: { dryRun?: boolean; now?: number } = {},
): string[] {
  let names: string[];
  try {
    // and what a deploy that died while saving left
    names = readdirSync(base).filter((n) => /^([0-9a-f]{32}|\.saving-.+)$/.test(n));
  } catch {
    return [];
  }
  const scripts = left.map((e) => {
    try {
      return readFileSync(join(e.dir, "command.batch"), "utf8");
    } catch {
      return "";
    }
  });
  const now = opts.now ?? Date.now();
  const gone = names.map((n) => join(base, n)).filter((dir) => {
    const name = dir.slice(base.length + 1);
    if (scripts.some((s) => s.includes(name))) return false;
    try {
      return now - statSync(dir).mtimeMs > SAVED_GRACE_MS;
    } catch {
      return false;
    }
  });
  if (!opts.dryRun) { for (const dir of gone) rmSync(dir, { recursive: true, force: true }); }
  return gone;
}
