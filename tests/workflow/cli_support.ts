/**
 * What the workflow CLI tests share: the bundled Baking workflow, the
 * environment of a run in a temp home, and a user workflow written to disk.
 *
 * @module
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../support/cli.ts";

/** The bundled Baking workflow. */
export const BAKING = join(ROOT, "fixtures", "workflows", "Baking");
/** The environment of a run in temp home `home`, without color. */
export const env = (home: string) => ({ SCOUT_HOME: home, HOME: home, NO_COLOR: "1" });

/** Writes `<dir>/workflows/<name>/workflow.ts` with `body`; returns its directory. */
export function userWorkflow(dir: string, name: string, body: string): string {
  const d = join(dir, "workflows", name);
  mkdirSync(d, { recursive: true });
  writeFileSync(join(d, "workflow.ts"), body);
  return d;
}
