/**
 * Knowledge-base tools: definitions compared field by field with Ruby's
 * (`LLM.database_tool_definition` / `database_details_tool_definition`,
 * scout-ai lib/scout/llm/tools/knowledge_base.rb, transcribed below), calls
 * through the dispatcher (JSON-string arrays, reverse, fields), `kb:` line
 * resolution and agents' `knowledge_base/`.
 */
import assert from "node:assert/strict";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runToolCalls } from "../../src/tools/dispatch.ts";
import { toolRegistry } from "../../src/tools/registry.ts";
import { assembleTools } from "../../src/tools/assemble.ts";
import { workflowToolResolver } from "../../src/tools/workflow.ts";
import {
  arrayArgument,
  databaseToolDefinition,
  detailsToolDefinition,
  kbLineTools,
  knowledgeBaseTools,
} from "../../src/tools/kb.ts";
import { openKnowledgeBase } from "../../src/kb/database.ts";
import { resolveKnowledgeBase } from "../../src/kb/resolve.ts";
import { agentToolRegistry, createAgent } from "../../src/agent/agent.ts";
import type { FunctionToolDefinition, ToolEntry } from "../../src/tools/types.ts";
import { ROOT, tempDir } from "../support/cli.ts";
import { isScoutError } from "../../src/errors.ts";

const FAMILY = join(ROOT, "fixtures", "kb", "family");

// Ruby's `database_tool_definition` / `database_details_tool_definition` output for
// representative cases, written out (scout-ai's port must print the same words).
const ENTITIES = { type: "array", items: { type: "string" } };
const DIRECTED_PARENTS = {
  name: "parents",
  description: "Find associations for a list of entities in database parents.\n" +
    "Returns a list in the format source~target.\n",
  parameters: {
    type: "object",
    properties: {
      entities: {
        ...ENTITIES,
        description:
          'Source entities in the association, or target entities if "reverse" is "true"',
      },
      reverse: {
        type: "boolean",
        description: 'Look for targets instead of sources, defaults to "false"',
      },
    },
    required: ["entities"],
  },
};
const UNDIRECTED_PARENTS_DESCRIBED = {
  name: "parents",
  description: "Find associations for a list of entities in database parents: " +
    "Who is whose parent.\nType: father or mother\nReturns a list in the format entity~partner.\n",
  parameters: {
    type: "object",
    properties: {
      entities: { ...ENTITIES, description: "Entities for which to find associations" },
    },
    required: ["entities"],
  },
};
const ONE_FIELD = "Return the Type of association.\n" +
  'Multiple values may be present and use the charater ";" to separate them.\n';
const DETAILS_DIRECTED_ONE_FIELD = {
  name: "marriages_association_details",
  description: ONE_FIELD,
  parameters: {
    type: "object",
    properties: {
      associations: { ...ENTITIES, description: "Associations in the form of source~target" },
    },
    required: ["associations"],
  },
};
const UNDIRECTED_ASSOCIATIONS = {
  ...ENTITIES,
  description: "Associations in the form of source~target or target~source",
};
const DETAILS_UNDIRECTED_ONE_FIELD = {
  ...DETAILS_DIRECTED_ONE_FIELD,
  parameters: {
    type: "object",
    properties: { associations: UNDIRECTED_ASSOCIATIONS },
    required: ["associations"],
  },
};
const DETAILS_UNDIRECTED_TWO_FIELDS = {
  name: "marriages_association_details",
  description: "Return details of a given list of association pairs as a dictionary object. " +
    "Use the function marriages to find the associations pairs. \n" +
    "Each key is an association and the value is an array with the values of the different " +
    "fields you asked for, or for all fields otherwise.\n" +
    "The fields are: Year, Place.\n" +
    'Multiple values may be present and use the charater ";" to separate them.\n',
  parameters: {
    type: "object",
    properties: {
      associations: UNDIRECTED_ASSOCIATIONS,
      fields: { ...ENTITIES, description: "Limit the response to these fields" },
    },
    required: ["associations"],
  },
};

function fieldByField(actual: FunctionToolDefinition, expected: Record<string, unknown>) {
  assert.equal(actual.type, "function");
  const f = actual.function as unknown as Record<string, unknown>;
  assert.deepEqual(Object.keys(f).sort(), Object.keys(expected).sort());
  for (const k of Object.keys(expected)) assert.deepEqual(f[k], expected[k], k);
  const p = f.parameters as Record<string, unknown>;
  const e = expected.parameters as Record<string, Record<string, unknown>>;
  assert.deepEqual(Object.keys(p.properties as object), Object.keys(e.properties!));
  for (const [name, schema] of Object.entries(e.properties!)) {
    assert.deepEqual((p.properties as Record<string, unknown>)[name], schema, name);
  }
}

Deno.test("definitions match Ruby's field by field: directed/undirected, with/without description, 1 or more fields", () => {
  for (const desc of [null, "", "  "]) {
    fieldByField(databaseToolDefinition("parents", false, desc), DIRECTED_PARENTS);
  }
  fieldByField(
    databaseToolDefinition("parents", true, "Who is whose parent.\nType: father or mother"),
    UNDIRECTED_PARENTS_DESCRIBED,
  );
  fieldByField(detailsToolDefinition("marriages", false, ["Type"]), DETAILS_DIRECTED_ONE_FIELD);
  // one field: Ruby drops the `fields` parameter of an undirected database
  fieldByField(detailsToolDefinition("marriages", true, ["Type"]), DETAILS_UNDIRECTED_ONE_FIELD);
  fieldByField(
    detailsToolDefinition("marriages", true, ["Year", "Place"]),
    DETAILS_UNDIRECTED_TWO_FIELDS,
  );
  // the check can fail: a changed word is caught
  assert.throws(() =>
    fieldByField(databaseToolDefinition("parents", true, null), DIRECTED_PARENTS)
  );
});

function names(entries: ToolEntry[]): string[] {
  return entries.map((e) => (e.definition as FunctionToolDefinition).function.name);
}

Deno.test("a KB's tools: one per database, details only for databases with fields", () => {
  const kb = openKnowledgeBase(FAMILY);
  const tools = knowledgeBaseTools(kb);
  assert.deepEqual(names(tools), [
    "parents",
    "parents_association_details",
    "siblings",
    "marriages",
    "marriages_association_details",
  ]);
  const parents = tools[0]!.definition as FunctionToolDefinition;
  assert.equal(
    parents.function.description,
    "Find associations for a list of entities in database parents: Children and their parents (father or mother)\nReturns a list in the format source~target.\n",
  );
  assert.deepEqual(names(knowledgeBaseTools(kb, ["siblings"])), ["siblings"]);
  assert.throws(() => knowledgeBaseTools(kb, ["nope"]), /Unknown database "nope"/);
});

Deno.test("calls through the dispatcher: arrays, JSON-string arrays, reverse, details, errors as outputs", async () => {
  const registry = toolRegistry();
  for (const e of knowledgeBaseTools(openKnowledgeBase(FAMILY))) {
    registry.set((e.definition as FunctionToolDefinition).function.name, e);
  }
  const out = await runToolCalls([
    { name: "parents", arguments: { entities: ["Ada"] }, id: "1" },
    { name: "parents", arguments: { entities: '["Eva", "Hugo"]' }, id: "2" },
    { name: "parents", arguments: { entities: ["Fede"], reverse: true }, id: "3" },
    { name: "siblings", arguments: { entities: ["Dani"] }, id: "4" },
    {
      name: "marriages_association_details",
      arguments: { associations: '["Bruno~Carla", "X~Y"]' },
      id: "5",
    },
    { name: "parents_association_details", arguments: { associations: ["Gala~Eva"] }, id: "6" },
    { name: "parents", arguments: { entities: "[oops" }, id: "7" },
    { name: "parents", arguments: { entities: 3 }, id: "8" },
    { name: "parents_association_details", arguments: {}, id: "9" },
  ], { registry });
  const content = (i: number) => JSON.parse(String(out[i * 2 + 1]!.content)).content;
  assert.equal(content(0), '["Ada~Bruno","Ada~Carla"]');
  assert.equal(content(1), '["Eva~Fede","Eva~Gala","Hugo~Fede","Hugo~Gala"]');
  assert.equal(content(2), '["Fede~Eva","Fede~Hugo"]');
  assert.equal(content(3), '["Dani~Ada"]');
  assert.equal(content(4), '{"Bruno~Carla":{"Year":"1990","Place":"León"}}');
  assert.equal(content(5), '{"Gala~Eva":{"Type of parent":"mother"}}');
  const exception = (i: number) => JSON.parse(content(i)).exception as string;
  assert.match(exception(6), /Argument "entities" is not a valid JSON array/);
  assert.match(exception(7), /"entities" must be array \(or a JSON-encoded array\), got number/);
  assert.match(exception(8), /Missing required argument "associations"/);
  assert.deepEqual(arrayArgument("Ada", "entities"), ["Ada"]);
  assert.deepEqual(arrayArgument(undefined, "entities"), []);
});

Deno.test("undirected details with several fields take 'fields'; one field does not offer it", async () => {
  await using d = await tempDir();
  const tsv = join(d.path, "pairs.tsv");
  writeFileSync(tsv, "#A\tB\tHow\tSince\nx\ty\tfriends\t2001\n");
  const kbDir = join(d.path, "kb");
  const { registerDatabase } = await import("../../src/kb/resolve.ts");
  registerDatabase(kbDir, "pairs", tsv, { undirected: true });
  const [, details] = knowledgeBaseTools(openKnowledgeBase(kbDir));
  const def = details!.definition as FunctionToolDefinition;
  assert.deepEqual(Object.keys(def.function.parameters!.properties!), ["associations", "fields"]);
  const ctx = { id: "c" };
  assert.deepEqual(
    await details!.impl!("pairs_association_details", {
      associations: ["y~x"],
      fields: '["Since"]',
    }, ctx),
    { "y~x": ["2001"] },
  );
  assert.deepEqual(
    await details!.impl!("pairs_association_details", {
      associations: ["x~y"],
    }, ctx),
    { "x~y": { How: "friends", Since: "2001" } },
  );
});

Deno.test("kb: resolution — workflow KB, var/knowledge_base/<word>, a path, the agent fallback", async () => {
  await using d = await tempDir();
  const cwd = join(d.path, "w");
  const home = join(d.path, "home");
  const env = { SCOUT_HOME: home, HOME: d.path };
  const opts = { cwd, env };
  const copy = (to: string) => {
    mkdirSync(to, { recursive: true });
    cpSync(FAMILY, to, { recursive: true });
  };
  assert.throws(() => resolveKnowledgeBase("Family", opts), /Knowledge base not found "Family"/);
  copy(join(home, "var", "knowledge_base", "Family"));
  assert.equal(resolveKnowledgeBase("Family", opts), join(home, "var", "knowledge_base", "Family"));
  copy(join(cwd, "var", "knowledge_base", "Family"));
  assert.equal(resolveKnowledgeBase("Family", opts), join(cwd, "var", "knowledge_base", "Family"));
  copy(join(home, "workflows", "Family", "knowledge_base"));
  assert.equal(
    resolveKnowledgeBase("Family", opts),
    join(home, "workflows", "Family", "knowledge_base"),
  );
  assert.equal(resolveKnowledgeBase(FAMILY, opts), FAMILY);
  assert.equal(
    resolveKnowledgeBase("../w/var/knowledge_base/Family", opts),
    join(cwd, "var", "knowledge_base", "Family"),
  );
  // an empty KB falls back to the agent of that name
  mkdirSync(join(cwd, "var", "knowledge_base", "Kin"), { recursive: true });
  copy(join(home, "Agent", "Kin", "knowledge_base"));
  assert.equal(resolveKnowledgeBase("Kin", opts), join(home, "Agent", "Kin", "knowledge_base"));
  assert.deepEqual(names(kbLineTools(["Kin", "siblings"], opts)), ["siblings"]);
});

Deno.test("kb: a path (.., ../x) is not looked up as a workflow's or an agent's name", async () => {
  await using d = await tempDir();
  const cwd = join(d.path, "w");
  const opts = { cwd, env: { SCOUT_HOME: join(d.path, "home"), HOME: d.path } };
  const copy = (to: string) => {
    mkdirSync(to, { recursive: true });
    cpSync(FAMILY, to, { recursive: true });
  };
  // <root>/workflows/../knowledge_base is <root>/knowledge_base; /workflows/../../x/… leaves the root
  copy(join(cwd, "knowledge_base"));
  copy(join(d.path, "x", "knowledge_base"));
  mkdirSync(join(cwd, "workflows"), { recursive: true });
  for (const path of ["..", "../x", "../../x"]) {
    assert.throws(
      () => resolveKnowledgeBase(path, opts),
      (e) => isScoutError(e, "not_found") && !e.message.includes("workflows"),
      path,
    );
  }
  assert.equal(resolveKnowledgeBase("./knowledge_base", opts), join(cwd, "knowledge_base"));
});

Deno.test("assembleTools: a kb: line through the default resolver gives the tools; no resolver is not_available", async () => {
  const messages = [
    { role: "kb", content: `${FAMILY} parents` },
    { role: "user", content: "Who are Ada's parents?" },
  ];
  const { registry, messages: rest } = await assembleTools(
    messages,
    new Map(),
    workflowToolResolver({ cwd: ROOT }),
  );
  assert.deepEqual([...registry.keys()], ["parents", "parents_association_details"]);
  assert.deepEqual(rest, [messages[1]]);
  await assert.rejects(
    () => assembleTools(messages, new Map(), {}),
    /"kb:" tools are not available/,
  );
});

Deno.test("an agent with a knowledge_base/ gets its databases as tools", () => {
  const agent = createAgent({ knowledgeBase: FAMILY });
  assert.deepEqual([...agentToolRegistry(agent).keys()], [
    "parents",
    "parents_association_details",
    "siblings",
    "marriages",
    "marriages_association_details",
  ]);
  assert.deepEqual([...agentToolRegistry(createAgent({})).keys()], []);
});
