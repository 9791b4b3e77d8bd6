/**
 * Knowledge-base databases as tools (`agents.md` §6.2), two per database,
 * with Ruby's definitions (`LLM.database_tool_definition`,
 * `database_details_tool_definition`): `<db>` finds associations of
 * entities (`reverse` for directed databases: the entities are targets, and
 * the keys come back reversed as Ruby returns them), `<db>_association_details`
 * gives the field values of `source~target` keys (only for databases with
 * fields besides source and target; `fields` for undirected ones with more
 * than one). JSON-encoded strings are accepted for array arguments. The
 * `kb:` line resolver lives here too.
 *
 * @module
 */
import {
  associationDetails,
  children,
  type DatabaseInfo,
  databaseInfo,
  databaseNames,
  type KnowledgeBase,
  openKnowledgeBase,
  parents,
} from "../kb/mod.ts";
import { type KbLookupOptions, resolveKnowledgeBase } from "../kb/resolve.ts";
import { ScoutError } from "../errors.ts";
import type { FunctionToolDefinition, JsonSchema, ToolEntry } from "./types.ts";
import { currentWarningSink } from "../util/warn_once.ts";

/**
 * The `<db>` tool definition (Ruby's `database_tool_definition`).
 *
 * @param database database name
 * @param undirected whether the database is undirected
 * @param description the database's description, if any
 * @returns the definition
 */
export function databaseToolDefinition(
  database: string,
  undirected: boolean,
  description: string | null,
): FunctionToolDefinition {
  const properties: Record<string, JsonSchema> = undirected
    ? {
      entities: {
        type: "array",
        items: { type: "string" },
        description: "Entities for which to find associations",
      },
    }
    : {
      entities: {
        type: "array",
        items: { type: "string" },
        description:
          'Source entities in the association, or target entities if "reverse" is "true"',
      },
      reverse: {
        type: "boolean",
        description: 'Look for targets instead of sources, defaults to "false"',
      },
    };
  let text = description && description.trim() !== ""
    ? `Find associations for a list of entities in database ${database}: ${description}\n`
    : `Find associations for a list of entities in database ${database}.\n`;
  text += undirected
    ? "Returns a list in the format entity~partner.\n"
    : "Returns a list in the format source~target.\n";
  return {
    type: "function",
    function: {
      name: database,
      description: text,
      parameters: { type: "object", properties, required: ["entities"] },
    },
  };
}

/**
 * The `<db>_association_details` tool definition (Ruby's
 * `database_details_tool_definition`), for the database's info fields.
 *
 * @param database database name
 * @param undirected whether the database is undirected
 * @param fields its info fields (at least one)
 * @returns the definition
 */
export function detailsToolDefinition(
  database: string,
  undirected: boolean,
  fields: readonly string[],
): FunctionToolDefinition {
  const properties: Record<string, JsonSchema> = undirected
    ? {
      associations: {
        type: "array",
        items: { type: "string" },
        description: "Associations in the form of source~target or target~source",
      },
      fields: {
        type: "array",
        items: { type: "string" },
        description: "Limit the response to these fields",
      },
    }
    : {
      associations: {
        type: "array",
        items: { type: "string" },
        description: "Associations in the form of source~target",
      },
    };
  let description: string;
  if (fields.length > 1) {
    description = `Return details of a given list of association pairs as a dictionary object. ` +
      `Use the function ${database} to find the associations pairs. \n` +
      "Each key is an association and the value is an array with the values of the different " +
      "fields you asked for, or for all fields otherwise.\n" +
      `The fields are: ${fields.join(", ")}.\n` +
      'Multiple values may be present and use the charater ";" to separate them.\n';
  } else {
    delete properties.fields;
    description = `Return the ${fields[0]} of association.\n` +
      'Multiple values may be present and use the charater ";" to separate them.\n';
  }
  return {
    type: "function",
    function: {
      name: `${database}_association_details`,
      description,
      parameters: { type: "object", properties, required: ["associations"] },
    },
  };
}

/**
 * An array argument: an array, or a JSON-encoded array in a string (Ruby
 * parses strings), or one plain string as a one-element list.
 *
 * @param value the argument
 * @param name its name (errors)
 * @returns the strings
 */
export function arrayArgument(value: unknown, name: string): string[] {
  let v = value;
  if (typeof v === "string") {
    const t = v.trim();
    if (t.startsWith("[")) {
      try {
        v = JSON.parse(t);
      } catch {
        throw new ScoutError("invalid_input", `Argument "${name}" is not a valid JSON array: ${t}`);
      }
    } else v = t === "" ? [] : [t];
  }
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) {
    throw new ScoutError("invalid_input", `Argument "${name}" must be an array of strings`);
  }
  return v.map(String);
}

/**
 * Argument check of the KB tools: the required array is present, array
 * arguments are arrays or (JSON-encoded) strings, `reverse` a boolean.
 *
 * @param required the required array argument
 * @param arrays every array argument
 * @returns the validator
 */
function kbValidator(required: string, arrays: string[]) {
  return (args: Record<string, unknown>): string[] => {
    const problems: string[] = [];
    if (args[required] === undefined || args[required] === null) {
      problems.push(`Missing required argument "${required}"`);
    }
    for (const a of arrays) {
      const v = args[a];
      if (v !== undefined && v !== null && !Array.isArray(v) && typeof v !== "string") {
        problems.push(`"${a}" must be array (or a JSON-encoded array), got ${typeof v}`);
      }
    }
    const r = args.reverse;
    if (r !== undefined && r !== null && typeof r !== "boolean" && r !== "true" && r !== "false") {
      problems.push(`"reverse" must be boolean, got ${typeof r}`);
    }
    return problems;
  };
}

/**
 * The databases of a knowledge base that can be opened (all, or the ones
 * named): one that cannot — its TSV file gone or malformed, TokyoCabinet
 * only — is skipped with a one-line warning naming it, the knowledge base
 * and the reason. A name the knowledge base does not have is an error.
 *
 * @throws ScoutError `not_available` when databases were asked for and none
 *   can be opened, naming each one's reason (no file: a `kb:` line's caller
 *   adds the line's)
 */
function openableDatabases(
  kb: KnowledgeBase,
  names: readonly string[] | undefined,
  warn: (m: string) => void,
): DatabaseInfo[] {
  const known = databaseNames(kb);
  const explicit = names !== undefined && names.length > 0;
  const infos: DatabaseInfo[] = [];
  const skipped: { db: string; why: string; tokyo: boolean }[] = [];
  for (const db of explicit ? names : known) {
    try {
      infos.push(databaseInfo(kb, db));
    } catch (e) {
      if (!(e instanceof ScoutError) || !known.includes(db)) throw e; // a typo is the line's error
      // where, when the error knows its line (a Ruby block's registry entry, a bad TSV header)
      const at = e.file !== undefined && e.line !== undefined ? ` (${e.file}:${e.line})` : "";
      skipped.push({ db, why: e.message + at, tokyo: e.code === "not_available" });
    }
  }
  // only TokyoCabinet files, asked for by no name: nothing to offer, as before — not an error
  if (infos.length === 0 && skipped.some((s) => explicit || !s.tokyo)) {
    throw new ScoutError(
      "not_available",
      `No database of knowledge base "${kb.dir}" can be opened (${
        skipped.map((s) => `${s.db}: ${s.why}`).join("; ")
      })`,
    );
  }
  for (const { db, why } of skipped) {
    warn(`database "${db}" of knowledge base "${kb.dir}" skipped: ${why}`);
  }
  return infos;
}

/**
 * Tool entries for the databases of a knowledge base (all, or the ones
 * named). Definitions read only the registry and the TSV headers; the index
 * is built on the first call. A database that cannot be opened is skipped
 * with a warning ({@link openableDatabases}).
 *
 * @param given the knowledge base
 * @param names databases to offer (default: all readable ones)
 * @param warn where skipped databases are reported, and an index built in a
 *   temporary directory when the knowledge base has no `warn` of its own
 * @returns registry entries
 * @throws ScoutError `not_found` for a name the knowledge base does not have,
 *   `not_available` when none of its databases can be opened
 */
export function knowledgeBaseTools(
  given: KnowledgeBase,
  names?: readonly string[],
  warn: (m: string) => void = currentWarningSink(),
): ToolEntry[] {
  const out: ToolEntry[] = [];
  const kb = { ...given, warn: given.warn ?? warn }; // where a temporary index is told
  for (const info of openableDatabases(kb, names, warn)) {
    const db = info.name;
    out.push({
      definition: databaseToolDefinition(db, info.undirected, info.description),
      validate: kbValidator("entities", ["entities"]),
      impl: (_name, args) => {
        const entities = arrayArgument(args.entities, "entities");
        const reverse = args.reverse === true || args.reverse === "true";
        return reverse && !info.undirected ? parents(kb, db, entities) : children(kb, db, entities);
      },
    });
    if (info.fields.length > 0) {
      const fieldsParam = info.undirected && info.fields.length > 1;
      out.push({
        definition: detailsToolDefinition(db, info.undirected, info.fields),
        validate: kbValidator("associations", ["associations", "fields"]),
        impl: (_name, args) => {
          const associations = arrayArgument(args.associations, "associations");
          const fields = fieldsParam && args.fields !== undefined && args.fields !== null
            ? arrayArgument(args.fields, "fields")
            : undefined;
          return associationDetails(kb, db, associations, fields?.length ? fields : undefined);
        },
      });
    }
  }
  return out;
}

/**
 * Tool entries of a `kb: <knowledge_base> [database…]` line: the name is
 * resolved as `agents.md` §6.1 says, then its databases become tools.
 *
 * @param tokens the line's tokens
 * @param opts cwd, env, and where skipped databases are reported
 * @returns registry entries
 */
export function kbLineTools(
  tokens: readonly string[],
  opts: KbLookupOptions & { warn?: (m: string) => void } = {},
): ToolEntry[] {
  const [name, ...dbs] = tokens;
  if (!name) throw new ScoutError("invalid_input", "A kb: line needs a knowledge base name");
  const dir = resolveKnowledgeBase(name, opts);
  const kb = openKnowledgeBase(dir, opts.env ?? process.env, opts.warn);
  return knowledgeBaseTools(kb, dbs, opts.warn);
}
