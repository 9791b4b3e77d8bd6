/**
 * The provider-facing definitions of scout-ai's built-in tools, pinned as the
 * digests of their canonical JSON (R103-1). A definition is part of every
 * inference-cache key of a request that offers it (`inference.md` §6): a
 * changed text — the `ask` tool's `maxLength` (ff0472b), the workflow tools'
 * `return_path` sentence (516f23c) — makes every recording of a run offering
 * the tool miss (`--offline`: `not_cached`; online: the inferences are paid
 * again). Such a change is allowed, but never silently: it is noted in
 * docs/design-notes.md, "Cache compatibility", before its digest is updated
 * here. The `introduce:` text is pinned too: it is part of the messages.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { agentToolRegistry, createAgent } from "../../src/agent/agent.ts";
import { delegate } from "../../src/agent/delegate.ts";
import { socialize } from "../../src/agent/socialize.ts";
import { chatAnalystWorkflow } from "../../src/chat_analyst/workflow.ts";
import { databaseToolDefinition, detailsToolDefinition } from "../../src/tools/kb.ts";
import { withProviderNames } from "../../src/tools/names.ts";
import { providerDefinitions, toolRegistry } from "../../src/tools/registry.ts";
import type { ToolDefinition, ToolEntry } from "../../src/tools/types.ts";
import {
  introductionText,
  parseToolFilter,
  taskToolDefinition,
  workflowToolNames,
} from "../../src/tools/workflow.ts";
import { canonicalJson } from "../../src/util/canonical_json.ts";
import { sha256hex } from "../../src/util/hash.ts";
import { loadWorkflowFile } from "../../src/workflow/load.ts";
import { ROOT } from "../support/cli.ts";

/**
 * The pinned digests (first 16 hex chars of `sha256(canonicalJson(definition))`),
 * and for a definition that changed after runs were recorded with it, the
 * commit of the change, which the "Cache compatibility" list must name.
 */
const PINNED: Record<string, { digest: string; noted?: string }> = {
  "ask (socialize)": { digest: "240c5a16a5d8be9b", noted: "ff0472b" },
  "hand_off_to_worker (delegate)": { digest: "46f0a91fb20c0941" },
  "Baking whisk (exec export)": { digest: "85dafa36daf388b6" },
  "Baking batter": { digest: "20131321b1d17bf9", noted: "516f23c" },
  "Baking cake": { digest: "b2cb2207757247d7", noted: "516f23c" },
  "Baking broken": { digest: "971ce97251b39638", noted: "516f23c" },
  "Baking cake minutes=5 (tool: line, pinned input)": {
    digest: "be275cb099f74a35",
    noted: "516f23c",
  },
  "kb database (directed, described)": { digest: "ae861abfe2114510" },
  "kb database (undirected)": { digest: "75d1d8206bccf902" },
  "kb details (one field)": { digest: "66dad449cece3cc3" },
  "kb details (undirected, fields)": { digest: "4f46a5d522bf20e1" },
  "alias of a refused name": { digest: "40a3dd678abf7b5d" },
  "introduce: Baking (a message text)": { digest: "4d99bb750d96b1d0" },
  "ChatAnalyst message_index": { digest: "dc3339b9a4a42819", noted: "516f23c" },
  "ChatAnalyst message_content": { digest: "9990eefa9c934df6", noted: "516f23c" },
  "ChatAnalyst chat_overview": { digest: "7c527c599ff42ec9", noted: "516f23c" },
  "ChatAnalyst chat_tool_calls": { digest: "04b0e810a7b387b2", noted: "516f23c" },
  "ChatAnalyst chat_tokens": { digest: "8db2fe040d6e6ba3", noted: "516f23c" },
  "ChatAnalyst chat_agents": { digest: "140cb6fb192463e3", noted: "516f23c" },
  "ChatAnalyst chat_report": { digest: "d9f9ad81202ed289", noted: "516f23c" },
};

/** The one function definition named `name` a registry offers the provider. */
function offered(entries: Iterable<[string, ToolEntry]> | ToolEntry[], name: string): unknown {
  const reg = Array.isArray(entries) ? toolRegistry(entries) : new Map(entries);
  const defs = providerDefinitions(reg).filter((d) =>
    (d as { function?: { name?: string } }).function?.name === name
  );
  assert.equal(defs.length, 1, `one definition of "${name}"`);
  return defs[0];
}

async function builtins(): Promise<Record<string, unknown>> {
  const boss = createAgent({ name: "Boss" });
  socialize(boss);
  delegate(boss, createAgent({ name: "Worker" }), "worker", "Hand work to the worker");
  const agentTools = agentToolRegistry(boss);
  const baking = await loadWorkflowFile(join(ROOT, "fixtures/workflows/Baking/workflow.ts"));
  const task = (t: string, tokens: string[] = []) =>
    offered([{ definition: taskToolDefinition(baking, t, parseToolFilter(tokens)) }], t);
  const def = (d: ToolDefinition) =>
    offered([{ definition: d }], (d as { function: { name: string } }).function.name);
  const refused = withProviderNames([{
    definition: databaseToolDefinition("db:genes", false, null),
  }]);
  const out: Record<string, unknown> = {
    "ask (socialize)": offered(agentTools, "ask"),
    "hand_off_to_worker (delegate)": offered(agentTools, "hand_off_to_worker"),
    "Baking whisk (exec export)": task("whisk"),
    "Baking batter": task("batter"),
    "Baking cake": task("cake"),
    "Baking broken": task("broken"),
    "Baking cake minutes=5 (tool: line, pinned input)": task("cake", ["minutes=5"]),
    "kb database (directed, described)": def(databaseToolDefinition("genes", false, "Gene pairs")),
    "kb database (undirected)": def(databaseToolDefinition("ppi", true, null)),
    "kb details (one field)": def(detailsToolDefinition("genes", false, ["score"])),
    "kb details (undirected, fields)": def(detailsToolDefinition("ppi", true, ["score", "source"])),
    "alias of a refused name": providerDefinitions(toolRegistry(refused))[0],
    "introduce: Baking (a message text)": introductionText(baking),
  };
  const analyst = chatAnalystWorkflow();
  for (const t of workflowToolNames(analyst)) {
    out[`ChatAnalyst ${t}`] = offered([{ definition: taskToolDefinition(analyst, t) }], t);
  }
  return out;
}

const digestOf = (v: unknown) => sha256hex(canonicalJson(v)).slice(0, 16);

Deno.test("the built-in tools' provider-facing definitions are the pinned ones (cache keys of recorded runs)", async () => {
  const now = Object.fromEntries(
    Object.entries(await builtins()).map(([k, v]) => [k, digestOf(v)]),
  );
  const changed = Object.keys({ ...now, ...PINNED }).filter((k) => now[k] !== PINNED[k]?.digest);
  assert.deepEqual(
    changed,
    [],
    `The provider-facing definition of ${changed.map((k) => `"${k}"`).join(", ")} changed ` +
      `(now ${JSON.stringify(Object.fromEntries(changed.map((k) => [k, now[k] ?? null])))}). ` +
      "Tool definitions are part of every inference-cache key (inference.md §6): this change " +
      "invalidates every cached recording of a run that offers the tool (--offline replay fails " +
      "not_cached, online runs pay for the inferences again). If it is meant, note it in " +
      'docs/design-notes.md under "Cache compatibility" (what changed, the commit, the date), ' +
      "then update the digest here (with noted: <commit>).",
  );
});

Deno.test('every noted change is in the "Cache compatibility" list of the design notes', () => {
  const notes = readFileSync(join(ROOT, "docs/design-notes.md"), "utf8");
  const at = notes.indexOf("## Cache compatibility");
  assert.ok(at >= 0, 'docs/design-notes.md has a "## Cache compatibility" section');
  const section = notes.slice(at, notes.indexOf("\n## ", at + 1));
  for (const [name, { noted }] of Object.entries(PINNED)) {
    if (noted) assert.ok(section.includes(noted), `"${name}": ${noted} is in the list`);
  }
});
