/**
 * A job's own inputs (`workflow.md` §1.3): the required ones checked, each
 * provided value coerced to its type, validated, a select value outside its
 * options warned about, defaults filled in, and what makes the job's name:
 * the non-default inputs and the values digested.
 *
 * @module
 */
import { isScoutError, ScoutError } from "../errors.ts";
import type { Task, Workflow } from "./define.ts";
import { coerceInput, isDefaultValue, selectWarning, validateInput } from "./coerce.ts";
import { pathRef } from "./digest.ts";
import type { InputDef } from "./job_types.ts";
import { isSymbolRef } from "./job_refs.ts";
import { ownRecord } from "../util/own_record.ts";

/** What assigning inputs needs of a job build: file loading, cwd, env, warnings. */
export interface InputContext {
  /** Replace strings naming existing files by their content (CLI arguments only). */
  loadFiles: boolean;
  /** Working directory (file inputs). */
  cwd: string;
  /** Environment. */
  env: Record<string, string | undefined>;
  /** Receives warnings. */
  warn: (message: string) => void;
  /** The warnings given so far in this build (each once). */
  warned: Set<string>;
  /**
   * Values recorded as provided in place of those given: the copies of the
   * files the inputs named, saved when the job was deployed, each → the
   * value as typed (see `CreateJobOptions.typedAs`).
   */
  typedAs?: ReadonlyMap<string, string>;
}

/** The job asked for: its workflow, task, provided inputs, and `Workflow/task` for messages. */
export interface JobRequest {
  /** The workflow. */
  wf: Workflow;
  /** The task. */
  task: Task;
  /** Provided inputs by name. */
  provided: Record<string, unknown>;
  /** `Workflow/task`, for messages. */
  where: string;
}

/**
 * Checks that every required input of a task is provided.
 *
 * @param req the job asked for
 * @throws ScoutError `parameter` naming the missing inputs (its `inputs`
 *   field lists them, quoted)
 */
export function requireInputs({ wf, task, provided, where }: JobRequest): void {
  const missing = task.inputs.filter((i) =>
    i.required && (provided[i.name] === undefined || provided[i.name] === null)
  ).map((i) => `"${i.name}"`);
  if (missing.length === 0) return;
  throw new ScoutError(
    "parameter",
    missing.length === 1
      ? `Input ${missing[0]} of ${where} is required but was not provided`
      : `Inputs ${missing.slice(0, -1).join(", ")} and ${
        missing.at(-1)
      } of ${where} are required but were not provided`,
    { workflow: wf.name, task: task.name, inputs: missing },
  );
}

/**
 * A provided input coerced to its type (a symbol reference to its symbol),
 * validated, and a select value outside its options warned about once per
 * input and value, also when dependencies declare the same input.
 */
function checkedInput(def: InputDef, raw: unknown, where: string, ctx: InputContext): unknown {
  if (isSymbolRef(raw)) return raw.symbol;
  let coerced: unknown;
  try {
    coerced = coerceInput(raw, def, ctx);
  } catch (e) {
    // text that does not parse as the input's type (JSON): a bad value of this input
    if (!isScoutError(e, "json_parse")) throw e;
    throw new ScoutError("parameter", `Input "${def.name}" of ${where}: ${e.message}`, {
      input: def.name,
      cause: e,
    });
  }
  validateInput(coerced, def, where);
  const w = selectWarning(coerced, def, where);
  const seen = `${def.name}\0${String(coerced)}`;
  if (w !== null && !ctx.warned.has(seen)) {
    ctx.warned.add(seen);
    ctx.warn(w);
  }
  return coerced;
}

/** A job's own inputs: values by name, the non-default ones, the values digested. */
export interface AssignedInputs {
  /** Every input's value by name. */
  inputs: Record<string, unknown>;
  /** Names of the non-default inputs, in declaration order. */
  nonDefault: string[];
  /** The values the input digest is taken of, in declaration order. */
  digestArray: unknown[];
}

/**
 * Assigns a task's inputs (§1.3): a provided non-default value, else the
 * default; an unprovided `jobname` input takes the id.
 *
 * @param req the job asked for
 * @param id the job's id (§2.1)
 * @param ctx file loading, cwd, warnings
 * @returns the values, the non-default inputs and the digested values
 * @throws ScoutError `parameter` for a value of the wrong type
 */
export function assignInputs(
  { task, provided, where }: JobRequest,
  id: string,
  ctx: InputContext,
): AssignedInputs {
  const out: AssignedInputs = { inputs: ownRecord(), nonDefault: [], digestArray: [] };
  for (const def of task.inputs) {
    const coerced = checkedInput(def, provided[def.name], where, ctx);
    let final: unknown;
    const sameAsJobname = def.jobname === true && coerced === id;
    if (
      coerced !== undefined && coerced !== null && !isDefaultValue(coerced, def) && !sameAsJobname
    ) {
      out.nonDefault.push(def.name);
      final = coerced;
    } else if (def.jobname) {
      // Scout lists the jobname input as non-default whenever there is an id
      // (always): given or not; it forces no digest unless provided and != id.
      out.nonDefault.push(def.name);
      final = coerced ?? id;
    } else final = def.default ?? null;
    out.inputs[def.name] = final;
    const asPath = def.type === "path" || def.type === "file" || def.asfile;
    out.digestArray.push(asPath && typeof final === "string" ? pathRef(final) : final);
  }
  return out;
}
