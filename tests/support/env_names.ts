/**
 * The environment variables `src/` reads by name, found by the ways it reads
 * them (`env.X`, `env["X"]`, the backends' and settings' `env`/`keyEnv`/
 * `modelEnv`/`urlEnv` lists, `envLimit(…, "X")`) and the endpoint variables
 * and routing variables (`ROUTING_ENV_VARS`). Shared by the check that every one is checked for
 * UTF-8 (`tests/cli/utf8_guard_test.ts`) and the one that every one is in
 * the README (`tests/e2e/readme_env_test.ts`).
 *
 * @module
 */
import { join } from "node:path";
import { ROUTING_ENV_VARS } from "../../src/config/routing_env.ts";
import { ROOT } from "./cli.ts";

/** Names `src/` reads from the environment, by the ways it reads them. */
export function namesReadInSrc(): Set<string> {
  const names = new Set<string>(ROUTING_ENV_VARS);
  const one = [
    /\benv(?:ironment)?\??\.([A-Z][A-Z0-9_]+)\b/g, // env.HOME, env?.ASK_AGENTS
    /\benv(?:ironment)?\??\.?\[\s*"([A-Z][A-Z0-9_]+)"/g, // env["X"]
    /\b(?:urlEnv|env):\s*"([A-Z][A-Z0-9_]+)"/g, // urlEnv: "OPENAI_URL", env: "EPOCH_SIZE"
    /envLimit\([^,]+,\s*"([A-Z][A-Z0-9_]+)"/g,
  ];
  const lists = /\b(?:env|keyEnv|modelEnv|envNames):\s*\[([^\]]*)\]/g; // env: ["A", "B"]
  for (const file of tsFiles(join(ROOT, "src"))) {
    const text = Deno.readTextFileSync(file);
    for (const re of one) for (const m of text.matchAll(re)) names.add(m[1]!);
    for (const m of text.matchAll(lists)) {
      for (const n of m[1]!.matchAll(/"([A-Z][A-Z0-9_]+)"/g)) names.add(n[1]!);
    }
  }
  return names;
}

function tsFiles(dir: string): string[] {
  return [...Deno.readDirSync(dir)].flatMap((e) =>
    e.isDirectory ? tsFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []
  );
}
