/**
 * `llm ask --schema FILE`: the JSON schema the answer must follow, read
 * from a JSON or YAML file (`.yaml`/`.yml`).
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { extname, resolve } from "node:path";
import { ScoutError } from "../errors.ts";
import { namedFileError } from "../util/fs.ts";
import { jsonErrorParts } from "../util/json_error.ts";

/**
 * Reads a schema file.
 *
 * @param file the file as given
 * @param cwd what it is relative to
 * @returns the schema
 * @throws ScoutError naming the file (and the line of a JSON syntax error)
 */
export async function loadSchema(file: string, cwd: string): Promise<unknown> {
  const path = resolve(cwd, file);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw namedFileError(file, e, "Schema file not found");
  }
  if (!/\.ya?ml$/i.test(extname(path))) {
    try {
      return JSON.parse(text);
    } catch (e) {
      const { text: why, line } = jsonErrorParts(text, e);
      throw new ScoutError("json_parse", `Cannot parse schema file: ${why}`, { file, line });
    }
  }
  try {
    const { parse: parseYaml } = await import("yaml");
    return parseYaml(text);
  } catch (e) {
    throw new ScoutError("json_parse", `Cannot parse schema file: ${(e as Error).message}`, {
      file,
    });
  }
}
