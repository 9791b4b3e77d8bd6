/**
 * How a dependency's options refer to its parent's values (`workflow.md`
 * §1.4): `{fromInput}` / `{fromDep}` references, resolved against the
 * parent's provided inputs and earlier dependencies, and the Ruby symbols
 * that named nothing. Part of job construction (`job.ts`).
 *
 * @module
 */
import { ScoutError } from "../errors.ts";
import type { FromDep, FromInput, Task } from "./job_types.ts";
import { isJob, type Job } from "./job_types.ts";
import { ownRecord } from "../util/own_record.ts";

/** Whether a value is a `{fromInput}` reference (and nothing else). */
export function isFromInput(v: unknown): v is FromInput {
  return typeof v === "object" && v !== null && !isJob(v) &&
    typeof (v as FromInput).fromInput === "string" && Object.keys(v).length === 1;
}

/** Whether a value is a `{fromDep}` reference (and nothing else). */
export function isFromDep(v: unknown): v is FromDep {
  return typeof v === "object" && v !== null && !isJob(v) &&
    typeof (v as FromDep).fromDep === "string" && Object.keys(v).length === 1;
}

/**
 * A Ruby symbol that named nothing (§1.4 step 4: `dep :t, x: :name` with no
 * dependency, provided value or option for `name`): the dependency gets the
 * symbol itself, which Scout never coerces (`:k` stays `k` for an integer
 * input). Internal to job construction; jobs and `.info` see its text.
 */
export interface SymbolRef {
  readonly [SYMBOL]: true;
  symbol: string;
}

const SYMBOL: unique symbol = Symbol("scout-ai.symbol-ref");

/** A {@link SymbolRef} for `symbol`. */
export function symbolRef(symbol: string): SymbolRef {
  return { [SYMBOL]: true, symbol };
}

/** Whether a value is a {@link SymbolRef}. */
export function isSymbolRef(v: unknown): v is SymbolRef {
  return typeof v === "object" && v !== null && (v as Record<symbol, unknown>)[SYMBOL] === true;
}

/** A provided value as user code and `.info` see it (a symbol as its text). */
export function plain(v: unknown): unknown {
  return isSymbolRef(v) ? v.symbol : v;
}

/** {@link plain} on every value of a record. */
export function plainAll(values: Record<string, unknown>): Record<string, unknown> {
  const out = ownRecord();
  for (const [k, v] of Object.entries(values)) out[k] = plain(v);
  return out;
}

/** What a dependency's references resolve against: the parent's values so far. */
export interface RefScope {
  provided: Record<string, unknown>;
  inputs: Record<string, unknown>;
  deps: Job[];
  task: Task;
}

/** Resolves one option value of a dependency (§1.4, Scout's `load_dep`). */
export function resolveRef(
  k: string,
  v: unknown,
  all: Record<string, unknown>,
  scope: RefScope,
): unknown {
  if (isFromDep(v)) {
    const d = scope.deps.find((j) => j.taskName === v.fromDep || j.overriddenTask === v.fromDep);
    if (d === undefined) {
      throw new ScoutError(
        "parameter",
        `Input "${k}" refers to dependency "${v.fromDep}", which is not declared before it in ${scope.task.workflow}/${scope.task.name}`,
      );
    }
    return d;
  }
  if (isFromInput(v)) {
    // §1.4 (Scout's load_dep): a dependency of that task name; else, when the
    // parent declares the input, its provided value, else the options' own
    // value; else the symbol itself (never the parent's default).
    const n = v.fromInput;
    const d = scope.deps.find((j) => j.taskName === n);
    if (d !== undefined) return d;
    const declared = scope.task.inputs.some((i) => i.name === n);
    if (declared && scope.provided[n] !== undefined) return scope.provided[n];
    const own = all[n];
    if (declared && own !== undefined) {
      if (isFromInput(own)) return symbolRef(own.fromInput);
      if (isFromDep(own)) return symbolRef(own.fromDep);
      return own;
    }
    return symbolRef(n);
  }
  return v;
}

/** Resolves every option value of a dependency. */
export function resolveRefs(
  options: Record<string, unknown>,
  scope: RefScope,
): Record<string, unknown> {
  // no prototypes: an option (or input) called `toString` is absent unless given
  const all = ownRecord(options);
  const out = ownRecord();
  for (const [k, v] of Object.entries(all)) out[k] = resolveRef(k, v, all, scope);
  return out;
}
