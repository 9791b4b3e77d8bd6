/**
 * The README's Library section for a project outside the clone (R105-9): a
 * Deno project with a `deno.json` of its own (the `imports` block the README
 * gives, its own config, not the clone's) and a Bun script with the README's
 * `tsconfig.json` (`paths`) run the README's `hello.ts` against the loopback
 * provider (an endpoint file `nano`, as the README's).
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DENO, ROOT, runCommand, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

const BUN = join(ROOT, "tools/node_modules/.bin/bun");

/** The fenced blocks of one language in the README's Library section, `<clone>` filled in. */
function libraryBlocks(lang: string): string[] {
  const text = readFileSync(join(ROOT, "README.md"), "utf8");
  const at = text.indexOf("\n## Library\n");
  const section = text.slice(at, text.indexOf("\n## ", at + 1));
  const fence = new RegExp("^```" + lang + "\\n([\\s\\S]*?)^```$", "gm");
  return [...section.matchAll(fence)].map((m) => m[1]!.replaceAll("<clone>", ROOT));
}

/** A temp project with the README's hello.ts, a loopback provider and the `nano` endpoint. */
async function helloProject(dir: string) {
  const srv = await startProviderServer({ script: [{ text: "hi" }, { text: "hi" }] });
  const home = join(dir, "scout-home");
  mkdirSync(join(home, "etc", "AI"), { recursive: true });
  writeFileSync(
    join(home, "etc", "AI", "nano.yaml"),
    `backend: openai\nmodel: loopback-model\nurl: ${srv.url}/v1\n`,
  );
  const hello = libraryBlocks("ts").find((b) => b.includes('content: "Say hi"'));
  assert.ok(hello, "the README's hello.ts");
  writeFileSync(join(dir, "hello.ts"), hello);
  return { srv, env: { SCOUT_HOME: home, OPENAI_API_KEY: "sk-readme" } };
}

Deno.test("README: a Deno project with its own deno.json (the README's imports) checks and runs hello.ts", async () => {
  await using t = await tempDir("scout-readme-");
  const imports = libraryBlocks("json").find((b) => b.includes('"imports"'));
  assert.ok(imports, "the README's deno.json block");
  writeFileSync(join(t.path, "deno.json"), imports);
  const { srv, env } = await helloProject(t.path);
  await using _ = srv;
  const check = await runCommand(DENO, ["check", "-q", "hello.ts"], { cwd: t.path, env });
  assert.equal(check.code, 0, check.stderr);
  const r = await runCommand(DENO, ["run", "-A", "-q", "hello.ts"], { cwd: t.path, env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "hi\n");
});

Deno.test("README: a Bun script with the README's tsconfig.json imports the package by name", async () => {
  await using t = await tempDir("scout-readme-");
  const tsconfig = libraryBlocks("json").find((b) => b.includes('"paths"'));
  assert.ok(tsconfig, "the README's tsconfig.json block");
  writeFileSync(join(t.path, "tsconfig.json"), tsconfig);
  const { srv, env } = await helloProject(t.path);
  await using _ = srv;
  const r = await runCommand(BUN, ["run", "hello.ts"], { cwd: t.path, env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "hi\n");
});
