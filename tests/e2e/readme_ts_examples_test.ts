/**
 * The README's TypeScript examples, as a user outside the clone has them
 * (R82-5, R82-7): every ```ts block, written to a temp directory, type-checks
 * with `deno check --config <clone>/deno.json` (the package imported by its
 * name, types only for files the CLI loads), and the Library section's agent
 * example runs there with `deno run -A --config <clone>/deno.json` against
 * the loopback provider (an endpoint file `nano`, as the README's), writing
 * its conversation; its workflow example (R126-9) runs there too, on a copy
 * of the bundled Baking workflow, and leaves its jobs in the Scout home.
 */
import assert from "node:assert/strict";
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "../../src/chat/parse.ts";
import { DENO, ROOT, runCommand, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

interface Block {
  /** README.md line of the opening fence. */
  line: number;
  /** The heading (`## …`) it is under. */
  section: string;
  code: string;
}

/** The ```ts blocks of README.md. */
function tsBlocks(): Block[] {
  const lines = readFileSync(join(ROOT, "README.md"), "utf8").split("\n");
  const out: Block[] = [];
  let section = "";
  for (let i = 0; i < lines.length; i++) {
    if (/^## /.test(lines[i]!)) section = lines[i]!.slice(3).trim();
    if (lines[i]!.trim() !== "```ts") continue;
    const start = i;
    const code: string[] = [];
    for (i++; i < lines.length && lines[i]!.trim() !== "```"; i++) code.push(lines[i]!);
    out.push({ line: start + 1, section, code: code.join("\n") + "\n" });
  }
  return out;
}

const deno = (args: string[], cwd: string, env: Record<string, string> = {}) =>
  runCommand(DENO, args, { cwd, env });

Deno.test("README: every ts example type-checks from a directory outside the clone (R82-5)", async () => {
  await using t = await tempDir("scout-readme-");
  const blocks = tsBlocks();
  assert.ok(blocks.length >= 3, `README ts blocks: ${blocks.length}`);
  const files = blocks.map((b) => {
    const file = join(t.path, `readme_${b.line}.ts`);
    writeFileSync(file, b.code);
    return file;
  });
  const r = await deno(["check", "-q", `--config=${join(ROOT, "deno.json")}`, ...files], t.path);
  assert.equal(r.code, 0, `${r.stderr}\n(file readme_<N>.ts is the block at README.md:<N>)`);
});

Deno.test("README: the Library section's agent example runs from outside the clone (R82-7)", async () => {
  await using t = await tempDir("scout-readme-");
  const example = tsBlocks().find((b) => b.section === "Library");
  assert.ok(example, "a ts block in the Library section");
  const add = (id: string, a: number, b: number) => ({
    toolCalls: [{ id, name: "add", arguments: { a, b } }],
  });
  await using srv = await startProviderServer({
    script: [add("c1", 2, 3), { text: "5" }, add("c2", 5, 4), { text: "9" }],
  });
  const home = join(t.path, "home", ".scout");
  Deno.mkdirSync(join(home, "etc", "AI"), { recursive: true });
  writeFileSync(
    join(home, "etc", "AI", "nano.yaml"),
    `backend: openai\nmodel: loopback-model\nurl: ${srv.url}/v1\n`,
  );
  writeFileSync(join(t.path, "calc.ts"), example.code);
  const env = { HOME: join(t.path, "home"), SCOUT_HOME: home, OPENAI_API_KEY: "sk-readme" };
  const r = await deno(
    ["run", "-A", "-q", `--config=${join(ROOT, "deno.json")}`, "calc.ts"],
    t.path,
    env,
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "5\n9\n");
  // the tool ran: its outputs went back to the model
  const outputs = srv.requests.flatMap((q) =>
    (q.body.messages as { role: string; content: string }[]).filter((m) => m.role === "tool")
  ).map((m) => m.content);
  assert.deepEqual([...new Set(outputs)], ["5", "9"]);
  const saved = parse(readFileSync(join(t.path, "calc.chat"), "utf8"));
  assert.deepEqual(
    saved.filter((m) => (m.role === "user" || m.role === "assistant") && m.content !== "")
      .map((m) => m.content),
    ["What is 2 + 3?", "5", "And that plus 4?", "9"],
  );
});

Deno.test("README: the Library section's workflow example loads a workflow.ts and runs its task as jobs (R126-9)", async () => {
  await using t = await tempDir("scout-readme-");
  const example = tsBlocks().find((b) =>
    b.section === "Library" && b.code.includes("loadWorkflow")
  );
  assert.ok(example, "a ts block in the Library section that loads a workflow file");
  cpSync(join(ROOT, "fixtures/workflows/Baking"), join(t.path, "workflows/Baking"), {
    recursive: true,
  });
  writeFileSync(join(t.path, "bake.ts"), example.code);
  const home = join(t.path, "home");
  const r = await deno(
    ["run", "-A", "-q", `--config=${join(ROOT, "deno.json")}`, "bake.ts"],
    t.path,
    { SCOUT_HOME: home },
  );
  assert.equal(r.code, 0, r.stderr);
  const short = "Baking/cake/Default_b1e6593158fbb625365985972b0c15fd";
  assert.equal(r.stdout, `${short} Cake (Whisked 3 soft, 0.5 kg flour, 30 min)\n\ntrue\n`);
  assert.ok(existsSync(join(home, "var/jobs", short)), "the job is in the Scout home's store");
});
