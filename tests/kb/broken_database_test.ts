/**
 * A knowledge base with a database that cannot be opened (its TSV file
 * deleted), through a `kb:` line and an agent's `knowledge_base/`, in a real
 * `scout-ai` subprocess (R76-6): the database is skipped with one warning
 * naming it, its knowledge base and the reason, and the others are offered;
 * when none can be opened, the error names the `kb:` line.
 */
import assert from "node:assert/strict";
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

const FAMILY = join(ROOT, "fixtures", "kb", "family");

function toolNames(body: Record<string, unknown>): string[] {
  return (body.tools as { function: { name: string } }[]).map((t) => t.function.name);
}

Deno.test("kb: line — a database whose TSV is gone is skipped with a warning; the others are offered", async () => {
  await using d = await tempDir();
  await using srv = await startProviderServer();
  const kb = join(d.path, "family");
  cpSync(FAMILY, kb, { recursive: true });
  rmSync(join(kb, "siblings"));
  const env = { SCOUT_HOME: join(d.path, "home"), OPENAI_API_KEY: "sk-kb" };
  const args = ["llm", "ask", "-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--no-cache"];
  const chat = join(d.path, "q.chat");
  writeFileSync(chat, "kb: ./family\n\nuser: Who are Ada's parents?\n");
  srv.script({ text: "Bruno and Carla." });
  const r = await runScout([...args, "-c", chat], { env, cwd: d.path });
  // before: exit 1, no request, only `scout-ai: TSV file not found "…/siblings"`
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "Bruno and Carla.\n");
  assert.deepEqual(toolNames(srv.requests[0]!.body), [
    "parents",
    "parents_association_details",
    "marriages",
    "marriages_association_details",
  ]);
  const warnings = r.stderr.split("\n").filter((l) => l.includes("siblings"));
  assert.equal(warnings.length, 1, r.stderr);
  assert.match(
    warnings[0]!,
    /^scout-ai: warning: database "siblings" of knowledge base ".*family" skipped: /,
  );
  assert.match(warnings[0]!, /TSV file not found ".*siblings"/);

  // every database gone: an error naming the kb: line, no request
  for (const db of ["parents", "marriages"]) rmSync(join(kb, db));
  const all = await runScout([...args, "-c", chat], { env, cwd: d.path });
  assert.equal(all.code, 1);
  assert.equal(srv.requests.length, 1);
  assert.match(all.stderr, /^scout-ai: No database of knowledge base ".*family" can be opened/);
  assert.match(all.stderr, /parents: TSV file not found/);
  assert.match(all.stderr, new RegExp(`\\(${chat}:1\\)\\n$`));
});

Deno.test("agent with knowledge_base/ — a database whose TSV is gone is skipped; the agent still asks", async () => {
  await using d = await tempDir();
  await using srv = await startProviderServer();
  const agentDir = join(d.path, "Agent", "Kin");
  mkdirSync(agentDir, { recursive: true });
  cpSync(FAMILY, join(agentDir, "knowledge_base"), { recursive: true });
  rmSync(join(agentDir, "knowledge_base", "marriages"));
  const env = { SCOUT_HOME: join(d.path, "home"), OPENAI_API_KEY: "sk-kb" };
  srv.script({ text: "Done." });
  const r = await runScout(
    [
      "agent",
      "ask",
      "Kin",
      "Who?",
      "-b",
      "openai",
      "-O",
      `url=${srv.url}`,
      "-m",
      "m",
      "--no-cache",
    ],
    { env, cwd: d.path },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(toolNames(srv.requests[0]!.body), [
    "parents",
    "parents_association_details",
    "siblings",
  ]);
  assert.match(
    r.stderr,
    /scout-ai: warning: database "marriages" of knowledge base ".*knowledge_base" skipped: /,
  );
});
