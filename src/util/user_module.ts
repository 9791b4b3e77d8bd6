/**
 * Importing a user's module (`workflow.ts`, `agent.ts`) so that a failure is
 * one typed error naming the module, and the file and line the runtime gives.
 *
 * @module
 */
import { ScoutError, type ScoutErrorCode } from "../errors.ts";
import { keepUserModulePositions } from "./bun_loader.ts";
import { importFailure } from "./import_error.ts";
import { importChecked } from "./missing_import.ts";

/**
 * Imports `file`, its local imports checked first.
 *
 * @param file the module (absolute path)
 * @param code the error's code (`workflow_load`, `agent_load`)
 * @param what what the module is, for the message (`workflow file`, `agent script`)
 * @returns the module's namespace
 * @throws ScoutError `code`, `Cannot load <what> "<file>": <why>`, with the
 *   file and line of the failure when the runtime says, caused by what it threw
 * @example
 * ```ts ignore
 * import { importUserModule } from "./user_module.ts";
 * const mod = await importUserModule("/w/workflow.ts", "workflow_load", "workflow file");
 * ```
 */
export async function importUserModule(
  file: string,
  code: ScoutErrorCode,
  what: string,
): Promise<Record<string, unknown>> {
  keepUserModulePositions(); // the binary (Bun) names the lines the file has (R94-1)
  try {
    return await importChecked(file);
  } catch (e) {
    // where the import failed, when the runtime says (a syntax error's file and line)
    const { text, ...at } = importFailure(e, file);
    throw new ScoutError(code, `Cannot load ${what} "${file}": ${text}`, { ...at, cause: e });
  }
}
