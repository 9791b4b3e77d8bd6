/**
 * Pipes given to value inputs of `workflow task` (`--text <(…)`, a FIFO):
 * read once, when the command line is parsed, their text the value — as a
 * file's text is, and as stdin's is for `-` — so neither the job digest nor
 * the task opens the pipe again. Scout reads it too (`Task.format_input`:
 * `Open.exists?` holds for a pipe, and `Persist.load` reads it); the job's
 * own loading reads regular files only (`coerce.ts`), so the value was the
 * name `/dev/fd/63`. (A `file`, `path` or `folder` input refuses a pipe as
 * it is parsed: `workflow_inputs.ts`.)
 *
 * @module
 */
import { resolve } from "node:path";
import { usageError } from "../errors.ts";
import { isPipe } from "../util/path_kind.ts";
import type { InputDef } from "../workflow/mod.ts";
import type { Io } from "./io.ts";
import { readTextWarned } from "./lossy_text.ts";
import { PATH_TYPES } from "./workflow_inputs.ts";

/** Whether the job replaces a value naming a file by its text, for an input read as a type. */
export type LoadsFile = (def: InputDef, type: string) => boolean;

/** One value given as a pipe: its input, its place in a list (or null), the value as typed. */
interface Piped {
  def: InputDef;
  index: number | null;
  value: string;
}

/** The values of the task's inputs that name a pipe (a list's items each). */
function pipedValues(
  provided: Record<string, unknown>,
  inputs: readonly InputDef[],
  cwd: string,
): Piped[] {
  const isPiped = (v: unknown): v is string =>
    typeof v === "string" && v !== "" && v !== "-" && isPipe(resolve(cwd, v));
  const out: Piped[] = [];
  for (const def of inputs) {
    if (!Object.hasOwn(provided, def.name)) continue; // a `Task#input` is given as typed
    const v = provided[def.name];
    if (isPiped(v)) out.push({ def, index: null, value: v });
    if (!Array.isArray(v)) continue;
    v.forEach((item, index) => {
      if (isPiped(item)) out.push({ def, index, value: item });
    });
  }
  return out;
}

/**
 * Refuses a pipe where the job would keep the name it is given rather than
 * load its text: an input of type `tsv` or `binary`, or declared `noload`,
 * `nofile`, `asfile` or `stream`; an item of a plain `array` (a repeated flag's
 * value), whose items are never loaded. The name of a pipe read once is no
 * value to keep.
 *
 * @throws ScoutError `usage` naming the input and the value
 */
function refuseKeptNames(piped: readonly Piped[], loadsFile: LoadsFile): void {
  for (const { def, index, value } of piped) {
    const type = index === null ? def.type : /^(.+)_array$/.exec(def.type)?.[1];
    if (type !== undefined && loadsFile(def, type)) continue;
    const path = def.type.replace(/_array$/, "");
    if (PATH_TYPES.has(path)) {
      // the job keeps the path, names itself by the file's content, and its task reads it later
      throw usageError(
        `Input --${def.name} takes a ${path} path, which the job keeps and its task reads ` +
          `later: "${value}" is a pipe, read once; save it to a file first`,
      );
    }
    throw usageError(
      `Input --${def.name} (${def.type}${index === null ? "" : " item"}) keeps a file name as ` +
        `given: "${value}" is a pipe, read once; save it to a file first`,
    );
  }
}

/**
 * Replaces each value naming a pipe by the pipe's text, read once (a pipe
 * named twice is read once; a list input takes the text's lines later, as
 * from a file). A deploy's workers build the job again from the command
 * line and could not read a pipe again: refused with `--deploy
 * local|slurm`, as stdin is.
 *
 * @param provided parsed inputs (changed in place)
 * @param inputs the task's recursive inputs
 * @param io injected I/O (cwd; warnings for invalid UTF-8)
 * @param ctx the deploy mode (`serial`, `local`, `slurm`) and the job's rule for loading a file
 *   (the workflow library's `loadsFileValue`)
 * @throws ScoutError `usage` for a pipe where a name is kept or with a deploy; `file_*` when a
 *   pipe cannot be read
 */
export async function readPipeInputs(
  provided: Record<string, unknown>,
  inputs: readonly InputDef[],
  io: Io,
  ctx: { deploy: string; loadsFile: LoadsFile },
): Promise<void> {
  const piped = pipedValues(provided, inputs, io.cwd);
  const first = piped[0];
  if (first === undefined) return;
  refuseKeptNames(piped, ctx.loadsFile);
  if (ctx.deploy !== "serial") {
    throw usageError(
      `An input read from a pipe (--${first.def.name} "${first.value}") cannot go with ` +
        `--deploy ${ctx.deploy}: its workers could not read it again; save it to a file first`,
    );
  }
  const read = new Map<string, string>();
  for (const { def, index, value } of piped) {
    const abs = resolve(io.cwd, value);
    const text = read.get(abs) ?? await readTextWarned(io, abs, value);
    read.set(abs, text);
    if (index === null) provided[def.name] = text;
    else (provided[def.name] as unknown[])[index] = text;
  }
}
