/**
 * The page tests' real browser: Debian's chromium driven by playwright-core
 * under Node (`browser_check.mjs`, which lists the jobs).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT } from "./cli.ts";

/** Where chromium is (`$CHROMIUM`, default Debian's). */
export const CHROMIUM = Deno.env.get("CHROMIUM") ?? "/usr/bin/chromium";

/** Fails the test when chromium is not installed. */
export function needBrowser(): void {
  try {
    Deno.statSync(CHROMIUM);
  } catch {
    assert.fail(
      `chromium is not installed at ${CHROMIUM} (tools/setup installs Debian's chromium)`,
    );
  }
}

/** Runs one `browser_check.mjs` job; its JSON result. */
export async function browser(job: Record<string, unknown>): Promise<Record<string, unknown>> {
  const out = await new Deno.Command("node", {
    args: [join(ROOT, "tests", "support", "browser_check.mjs"), JSON.stringify(job)],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const err = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, err);
  return JSON.parse(new TextDecoder().decode(out.stdout));
}
