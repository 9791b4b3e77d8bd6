/**
 * `llm prov` takes a job by the reference scout-ai prints — the short path
 * `Workflow/task/name` of `workflow task --json` and of a `meta: job=` line —
 * and by a prefix of its name, as `workflow info` does (R165-4); a file of
 * that name relative to cwd stays the ROOT.
 */
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ROOT, runScout, tempDir } from "../support/cli.ts";

const BAKING = join(ROOT, "fixtures", "workflows", "Baking");

Deno.test("llm prov ROOT: a job's short path or name prefix, as workflow info takes it (R165-4)", async () => {
  await using d = await tempDir();
  const o = { env: { HOME: d.path, SCOUT_HOME: join(d.path, "scout") }, cwd: d.path };
  const task = await runScout(["workflow", "task", BAKING, "whisk", "--eggs", "4", "--json"], o);
  assert.equal(task.code, 0, task.stderr);
  const { shortPath, path } = JSON.parse(task.stdout) as { shortPath: string; path: string };
  assert.match(shortPath, /^Baking\/whisk\/Default_[0-9a-f]+$/);

  const byPath = await runScout(["llm", "prov", path], o);
  assert.equal(byPath.code, 0, byPath.stderr);
  const byShort = await runScout(["llm", "prov", shortPath], o);
  assert.equal(byShort.code, 0, byShort.stderr);
  assert.equal(byShort.stdout, byPath.stdout);
  assert.match(byShort.stdout, /^job Baking\/whisk /);
  assert.equal(byShort.stderr, "");

  const prefix = shortPath.slice(0, -20);
  const byPrefix = await runScout(["llm", "prov", prefix, "--json"], o);
  assert.equal(byPrefix.code, 0, byPrefix.stderr);
  assert.equal(byPrefix.stderr, `scout-ai: "${prefix}" matched ${path}\n`);
  assert.equal(JSON.parse(byPrefix.stdout).root, `job:${path}`);

  const none = await runScout(["llm", "prov", "Baking/whisk/Nope"], o);
  assert.equal(none.code, 1);
  assert.equal(none.stderr, "scout-ai: Chat not found: Baking/whisk/Nope\n");

  // a chat file at that path relative to cwd is the ROOT, not the job
  await mkdir(join(d.path, dirname(shortPath)), { recursive: true });
  await writeFile(join(d.path, shortPath), "user: hi\n");
  const chat = await runScout(["llm", "prov", shortPath, "--json"], o);
  assert.equal(chat.code, 0, chat.stderr);
  assert.match(JSON.parse(chat.stdout).root, /^chat:/);
});
