/**
 * Inputs named like Object.prototype members (`toString`, `constructor`,
 * `valueOf`, `hasOwnProperty`, `__proto__`…) are inputs like any: absent when
 * not given (never Object.prototype's member), a value when given, and a job
 * is named from its values alone — the spec's digest vectors (§2.3) hold
 * whatever the inputs are called (R112-5 follow-up).
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { input, workflow } from "../../src/workflow/define.ts";
import { createJob, jobAt } from "../../src/workflow/job.ts";
import { runJob } from "../../src/workflow/run.ts";
import { jobInfo } from "../../src/workflow/info.ts";
import { jobStore } from "../../src/workflow/store.ts";
import { md5hex } from "../../src/util/hash.ts";
import { ownRecord } from "../../src/util/own_record.ts";
import { homeIn, tempDir } from "../support/cli.ts";

const store = jobStore({
  env: { SCOUT_HOME: "/tmp/scout-h3-none" },
  cwd: "/",
  jobsDir: "/tmp/scout-h3-none/var/jobs",
});
const noop = () => null;

/** Spec §2.3's `Dep` workflow (`a` with `n=1`; `b` with `m=1`, `dep :a`), its inputs renamed. */
function depWorkflow(n: string, m: string) {
  return workflow("Dep", {
    tasks: {
      a: { type: "integer", inputs: { [n]: input.integer({ default: 1 }) }, run: noop },
      b: {
        type: "integer",
        inputs: { [m]: input.integer({ default: 1 }) },
        deps: ["a"],
        run: noop,
      },
    },
  });
}

Deno.test("the spec's digest vectors hold for inputs named like Object.prototype members", () => {
  const pairs = [["toString", "constructor"], ["valueOf", "hasOwnProperty"], ["__proto__", "n"], [
    "n",
    "__proto__",
  ], ["n", "m"]];
  for (const [n, m] of pairs) {
    const W = depWorkflow(n!, m!);
    // before: Input "constructor" of Dep/b expects integer, got function Object()…
    const none = createJob(W, "b", { store });
    assert.equal(none.name, "Default", `${n}, ${m}`);
    assert.deepEqual(none.inputs, ownRecord({ [m!]: 1 }));
    assert.deepEqual(none.deps[0]!.inputs, ownRecord({ [n!]: 1 }));
    assert.deepEqual(none.providedInputs, ownRecord());
    const given = ownRecord({ [n!]: 2 });
    const a = createJob(W, "a", { inputs: given, store });
    assert.equal(a.name, "Default_2c00ffa16b5f007cb27754ca8b1a8f86", `${n}`);
    assert.deepEqual(a.providedInputs, given);
    const b = createJob(W, "b", { inputs: given, store });
    // a dependency's non-default input digests its parent, whatever its name (before, a
    // `toString` of the dependency's was taken for one its options fixed: `b` was `Default`)
    assert.equal(b.name, "Default_675fff2747ee0d767ee6a8b476ba778d", `${n}, ${m}`);
    assert.deepEqual(b.nonDefaultInputs, [n]);
  }
});

Deno.test("fromInput of an unprovided input called toString passes the symbol, as for any (§1.4)", () => {
  const W = workflow("FromProto", {
    tasks: {
      a: { type: "string", inputs: { t: input.string({ default: "dt" }) }, run: ({ t }) => t },
      p: {
        type: "string",
        inputs: { toString: input.string({ default: "dflt" }) },
        deps: [{ task: "a", inputs: { t: { fromInput: "toString" } } }],
        run: noop,
      },
    },
  });
  const p = createJob(W, "p", { store });
  assert.equal(p.deps[0]!.inputs.t, "toString");
  assert.equal(p.deps[0]!.name, "Default_" + md5hex("{inputs=[toString], dependencies=[]}"));
  assert.equal(p.name, "Default");
  const given = createJob(W, "p", { store, inputs: { toString: "hello" } });
  assert.equal(given.deps[0]!.name, "Default_" + md5hex("{inputs=[hello], dependencies=[]}"));
});

Deno.test("a body sees its inputs and recursive inputs called toString, __proto__… as given or null", async () => {
  await using d = await tempDir();
  const seen: unknown[] = [];
  const W = workflow("ProtoBody", {
    jobsDir: join(d.path, "jobs"),
    tasks: {
      dep: {
        type: "json",
        inputs: { toString: input.string(), ["__proto__"]: input.json(), valueOf: input.string() },
        run: (i) => ({ ...i }),
      },
      t: {
        type: "json",
        inputs: { constructor: input.integer({ default: 3 }) },
        deps: ["dep"],
        run: (i, job) => {
          seen.push(Object.getPrototypeOf(i), Object.getPrototypeOf(job.recursiveInputs));
          return { own: { ...i }, recursive: { ...job.recursiveInputs } };
        },
      },
    },
  });
  const none = createJob(W, "t", { env: homeIn(d.path) });
  assert.deepEqual(await runJob(none), {
    own: { constructor: 3 },
    // before: the dependency's `toString` and `valueOf` were Object.prototype's, never listed
    recursive: { constructor: 3, toString: null, ["__proto__"]: null, valueOf: null },
  });
  assert.deepEqual(seen, [null, null]);
  const given = ownRecord({ ["__proto__"]: '{"polluted": true}', toString: "s" });
  const job = createJob(W, "t", { env: homeIn(d.path), inputs: given });
  assert.deepEqual(await runJob(job), {
    own: { constructor: 3 },
    recursive: { constructor: 3, toString: "s", ["__proto__"]: { polluted: true }, valueOf: null },
  });
  const info = await jobInfo(job.deps[0]!.path);
  // as given (the value, not a prototype)
  assert.deepEqual(info!.provided_inputs, { toString: "s", ["__proto__"]: '{"polluted": true}' });
  assert.deepEqual(info!.input_names, ["toString", "__proto__", "valueOf"]);
  assert.deepEqual(info!.inputs, ["s", { polluted: true }, null]);
  // read back from disk: the same inputs, in a record without a prototype
  const back = jobAt(job.deps[0]!.path);
  assert.deepEqual(
    back.inputs,
    ownRecord({ toString: "s", ["__proto__"]: { polluted: true }, valueOf: null }),
  );
});

Deno.test("jobAt: a job named x.constructor, without info, is binary (no type of Object.prototype's)", async () => {
  await using d = await tempDir();
  const dir = join(d.path, "var", "jobs", "WF", "t");
  mkdirSync(dir, { recursive: true });
  for (const ext of ["constructor", "toString", "json"]) writeFileSync(join(dir, `x.${ext}`), "1");
  const st = jobStore({ env: { SCOUT_HOME: join(d.path, "none") }, cwd: d.path });
  // before: the type was the function Object
  assert.equal(jobAt("WF/t/x.constructor", { store: st, cwd: d.path }).type, "binary");
  assert.equal(jobAt("WF/t/x.toString", { store: st, cwd: d.path }).type, "binary");
  assert.equal(jobAt("WF/t/x.json", { store: st, cwd: d.path }).type, "json");
});
