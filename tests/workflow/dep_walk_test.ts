/**
 * The dependency walk the agent layer uses (a chat task's system message
 * listing its dependencies, the first run of an ask that keeps failed
 * dependencies' evidence): the order a recursive pre-order walk gives, each
 * path once, and a chain deeper than any call stack walked whole.
 */
import assert from "node:assert/strict";
import { dependenciesDepthFirst } from "../../src/workflow/dep_walk.ts";
import type { Job } from "../../src/workflow/job_types.ts";

/** A job as the walk sees it: a path and declared dependencies. */
const node = (path: string, deps: Job[] = []) => ({ path, deps }) as unknown as Job;

/** The recursive walk the agent layer had, for reference. */
function recursive(deps: readonly Job[], seen = new Set<string>()): string[] {
  const out: string[] = [];
  for (const d of deps) {
    if (seen.has(d.path)) continue;
    seen.add(d.path);
    out.push(d.path, ...recursive(d.deps, seen));
  }
  return out;
}

Deno.test("dependenciesDepthFirst: a dependency, then its own, then the next; shared ones once", () => {
  const shared = node("s", [node("t")]);
  const a = node("a", [node("a1", [shared]), node("a2")]);
  const b = node("b", [shared, node("b1")]);
  const c = node("c", [node("s", [node("t")])]); // another object, same path
  const walked = dependenciesDepthFirst([a, b, c]).map((j) => j.path);
  assert.deepEqual(walked, ["a", "a1", "s", "t", "a2", "b", "b1", "c"]);
  assert.deepEqual(walked, recursive([a, b, c]));
});

Deno.test("dependenciesDepthFirst: a job not included is neither listed nor walked through", () => {
  const done = node("done", [node("under-done")]);
  const top = [node("a", [done, node("b", [node("under-done")])])];
  const walked = dependenciesDepthFirst(top, (j) => j.path !== "done").map((j) => j.path);
  assert.deepEqual(walked, ["a", "b", "under-done"]);
});

Deno.test("dependenciesDepthFirst: a chain of 100,000 is walked whole, in order", () => {
  let bottom = node("0");
  for (let i = 1; i < 100_000; i++) bottom = node(String(i), [bottom]);
  assert.throws(() => recursive([bottom]), RangeError); // what the recursive walk did
  const walked = dependenciesDepthFirst([bottom]);
  assert.equal(walked.length, 100_000);
  assert.equal(walked[0]!.path, "99999");
  assert.equal(walked.at(-1)!.path, "0");
});
