/**
 * The warning `workflow task` gives for an input named like a credential
 * (R146-5). A job's `.info` keeps every input as given (`provided_inputs`,
 * `inputs`: `workflow.md` §3.2, what Scout writes and reads back), and the
 * job's name hashes them, so such a value is neither masked there nor left
 * out — a masked `.info` would no longer tell the job's inputs to Scout or to
 * `workflow info`, and a `--deploy slurm` batch job must be given it on its
 * command line. The user is told instead, naming the input (never its
 * value), where it is stored and the way that stores it nowhere.
 *
 * @module
 */
import { isSecretName } from "../util/secrets.ts";

/**
 * The warning for the inputs given (`provided`, by name) that are named like
 * a credential ({@link isSecretName}: `api_key`, `token`, `password`…), or
 * none.
 *
 * @param provided the inputs given on the command line, by name
 * @param where `Workflow/task`
 * @param slurm whether the job goes to SLURM (its batch script's command line holds them)
 * @returns the warning's text, or undefined
 *
 * @example
 * ```ts
 * import { secretInputsWarning } from "./workflow_secret_inputs.ts";
 * secretInputsWarning({ api_key: "k", n: 2 }, "Sec/use", false);
 * // "input --api_key of Sec/use is named like a credential: its value is stored as given …"
 * ```
 */
export function secretInputsWarning(
  provided: Readonly<Record<string, unknown>>,
  where: string,
  slurm: boolean,
): string | undefined {
  const names = Object.keys(provided).filter(isSecretName);
  if (names.length === 0) return undefined;
  const one = names.length === 1;
  const flags = names.map((n) => `--${n}`).join(", ");
  const batch = slurm
    ? ` and in the command line of ${one ? "its" : "their"} batch script (command.batch)`
    : "";
  return `input${one ? "" : "s"} ${flags} of ${where} ${one ? "is" : "are"} named like ` +
    `a credential: ${one ? "its value is" : "their values are"} stored as given in the job's ` +
    `.info (provided_inputs, inputs; as Scout stores every input)${batch}; let the task read ` +
    "a key from an environment variable or an endpoint file instead";
}
