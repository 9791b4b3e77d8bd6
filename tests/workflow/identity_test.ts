import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { input, recursiveInputs, workflow } from "../../src/workflow/define.ts";
import { createJob, jobAt, truncateJobName } from "../../src/workflow/job.ts";
import { digest, digestStr, pathRef } from "../../src/workflow/digest.ts";
import { jobStore } from "../../src/workflow/store.ts";
import { md5hex } from "../../src/util/hash.ts";
import { isScoutError } from "../../src/errors.ts";
import { tempDir } from "../support/cli.ts";
import { ownRecord } from "../../src/util/own_record.ts";

const noop = () => null;
const store = jobStore({
  env: { SCOUT_HOME: "/tmp/scout-h3-none" },
  cwd: "/",
  jobsDir: "/tmp/scout-h3-none/var/jobs",
});

const Baking = workflow("Baking", {
  tasks: {
    whisk: {
      type: "string",
      inputs: {
        eggs: input.integer({ default: 2, description: "Number of eggs" }),
        style: input.select(["soft", "hard"], { default: "soft" }),
      },
      run: noop,
    },
    arr: { type: "array", inputs: { list: input.array() }, run: noop },
    mixed: {
      type: "string",
      inputs: {
        text: input.text(),
        flag: input.boolean({ default: false }),
        ratio: input.float({ default: 1.5 }),
      },
      run: noop,
    },
    ask: { type: "chat", inputs: { chat: input.chat() }, run: noop },
  },
});
const Dep = workflow("Dep", {
  tasks: {
    a: { type: "integer", inputs: { n: input.integer({ default: 1 }) }, run: noop },
    b: { type: "integer", inputs: { m: input.integer({ default: 1 }) }, deps: ["a"], run: noop },
  },
});

Deno.test("digest vectors of spec §2.3 (byte-exact) and job names", () => {
  const j1 = createJob(Baking, "whisk", { inputs: { eggs: 3 }, store });
  assert.equal(
    digestStr({ inputs: digestStr([3, "soft"]), dependencies: [] }),
    "{inputs=[3, soft], dependencies=[]}",
  );
  assert.equal(j1.name, "Default_09c565660e3592e6a4001674e5a22269");
  assert.equal(
    j1.path,
    "/tmp/scout-h3-none/var/jobs/Baking/whisk/Default_09c565660e3592e6a4001674e5a22269",
  );
  assert.equal(
    createJob(Baking, "whisk", { inputs: { eggs: "2" }, jobname: "myname", store }).name,
    "myname",
  );
  assert.equal(
    createJob(Baking, "arr", { inputs: { list: ["a", "b"] }, store }).name,
    "Default_3f4292154d301e6d020cda68d5c44b47",
  );
  assert.equal(
    createJob(Baking, "mixed", { inputs: { text: "hello\nworld", flag: true, ratio: 1.5 }, store })
      .name,
    "Default_8f98fbe2279834c5e238fb69ffb4ad23",
  );
  assert.equal(digestStr(["hello\nworld", true, 1.5]), "[hello\nworld, true, 1.500]");
  const chat = createJob(Baking, "ask", { inputs: { chat: "user:\n\nhello\n" }, store });
  assert.equal(chat.name, "Default_dbfa89396d7a5eb718c1a46679e1a356.chat");
  assert.equal(chat.shortPath, "Baking/ask/Default_dbfa89396d7a5eb718c1a46679e1a356.chat");
  const a = createJob(Dep, "a", { inputs: { n: 2 }, store });
  assert.equal(a.name, "Default_2c00ffa16b5f007cb27754ca8b1a8f86");
  const b = createJob(Dep, "b", { inputs: { n: 2 }, store });
  assert.equal(
    digestStr({ inputs: digestStr([1]), dependencies: b.deps }),
    "{inputs=[1], dependencies=[Step: var/jobs/Dep/a/Default_2c00ffa16b5f007cb27754ca8b1a8f86]}",
  );
  assert.equal(b.name, "Default_675fff2747ee0d767ee6a8b476ba778d");
  assert.deepEqual(b.nonDefaultInputs, ["n"]);
  assert.deepEqual(b.providedInputs, ownRecord({ n: 2 }));
});

Deno.test("defaults only → Default; string keys behave like symbol keys (defect §2.2 fixed)", () => {
  assert.equal(createJob(Baking, "whisk", { store }).name, "Default");
  assert.equal(
    createJob(Baking, "whisk", { inputs: { eggs: 2, style: "soft" }, store }).name,
    "Default",
  );
  assert.equal(createJob(Dep, "b", { store }).name, "Default");
  assert.equal(createJob(Dep, "b", { inputs: { m: 1, n: 1 }, store }).deps[0]!.name, "Default");
});

Deno.test("digestStr rules: floats, nil, maps, quirk, big arrays, strings naming files", async () => {
  assert.equal(digestStr(2.0), "2");
  assert.equal(digestStr(12.34), "12.3");
  assert.equal(digestStr(1.5), "1.500");
  assert.equal(digestStr(0.5), "0.500000");
  assert.equal(digestStr(-0.25), "-0.250000");
  assert.equal(digestStr(2.0625), "2.062"); // printf rounds an exact tie to even
  assert.equal(digestStr(1e21), "1000000000000000000000");
  assert.equal(digestStr(null), "nil");
  assert.equal(digestStr(false), "false");
  assert.equal(digestStr(["", "a"]), "[a]");
  assert.equal(digestStr(["a", ""]), "[a, ]");
  assert.equal(digestStr({ b: 1, a: [1, 2] }), "{b=1, a=[1, 2]}");
  const big = Array.from({ length: 100_001 }, (_, i) => i);
  assert.equal(digestStr(big), "[100001:1, 2, 50000, 99999, 100000]");
  await using d = await tempDir();
  const f = join(d.path, "data.txt");
  writeFileSync(f, "hello");
  assert.equal(digestStr(f), "File MD5: " + md5hex("hello"));
  writeFileSync(f + ".md5", "cafe\n");
  assert.equal(digestStr(f), "File MD5: cafe");
  mkdirSync(join(d.path, "dir"));
  writeFileSync(join(d.path, "dir", "b"), "B");
  writeFileSync(join(d.path, "dir", "a"), "A");
  assert.equal(
    digestStr(join(d.path, "dir")),
    `Directory MD5: [File MD5: ${md5hex("A")}, File MD5: ${md5hex("B")}]`,
  );
  const sf = join(d.path, "WF", "t", "Default.files", "out.txt");
  mkdirSync(join(d.path, "WF", "t", "Default.files"), { recursive: true });
  writeFileSync(sf, "x");
  assert.equal(digestStr(sf), "Step file: WF/t/Default.files/out.txt");
  assert.equal(digestStr("no/such/file"), "no/such/file");
  assert.equal(digestStr(pathRef("data/missing.txt")), "'data/missing.txt'");
  assert.equal(digest("x"), md5hex("x"));
});

Deno.test("coercion: CLI strings deserialized, files loaded only when asked, file inputs absolute", async () => {
  await using d = await tempDir();
  writeFileSync(join(d.path, "n.txt"), "7\n");
  const W = workflow("Coerce", {
    tasks: {
      t: {
        type: "string",
        inputs: {
          n: input.integer({ default: 1 }),
          f: input.file(),
          l: input.arrayOf("integer"),
          s: input.string({ noload: true }),
          e: input.string(),
        },
        run: noop,
      },
    },
  });
  const cli = createJob(W, "t", {
    inputs: { n: "n.txt", f: "n.txt", l: "1\n2x", s: "n.txt", e: "" },
    loadFiles: true,
    cwd: d.path,
    store,
  });
  assert.deepEqual(
    cli.inputs,
    ownRecord({ n: 7, f: join(d.path, "n.txt"), l: [1, 2], s: "n.txt", e: "" }),
  );
  const api = createJob(W, "t", { inputs: { n: "n.txt" }, cwd: d.path, store });
  assert.equal(api.inputs.n, 0); // "n.txt".to_i — file content is never pulled in for API/tool calls
  assert.equal(
    createJob(W, "t", { inputs: { f: "missing.txt" }, cwd: d.path, store }).inputs.f,
    "missing.txt",
  );
});

Deno.test("bad input: missing required, wrong types, select options, job names with /", () => {
  const W = workflow("Bad", {
    tasks: {
      t: {
        type: "string",
        inputs: {
          a: input.string({ required: true }),
          b: input.integer({ required: true }),
          c: input.select(["x", "y"]),
          d: input.integer(),
        },
        run: noop,
      },
    },
  });
  assert.throws(() => createJob(W, "t", { store }), (e) =>
    isScoutError(e, "parameter") &&
    e.message === 'Inputs "a" and "b" of Bad/t are required but were not provided');
  assert.throws(
    () => createJob(W, "t", { inputs: { a: "x", b: null }, store }),
    /Input "b" of Bad\/t is required/,
  );
  assert.throws(
    () => createJob(W, "t", { inputs: { a: "x", b: 1.5 }, store }),
    /Input "b" of Bad\/t expects integer, got 1.5/,
  );
  assert.throws(
    () => createJob(W, "t", { inputs: { a: "x", b: 1, d: { k: 1 } }, store }),
    /expects integer, got an object/,
  );
  assert.throws(
    () => createJob(W, "t", { inputs: { a: "x", b: 1 }, jobname: "a/b", store }),
    (e) => isScoutError(e, "parameter") && /Job name "a\/b" of Bad\/t is not valid/.test(e.message),
  );
  assert.throws(() => createJob(W, "nope", { store }), (e) => isScoutError(e, "task_not_found"));
  assert.throws(() => createJob(Baking, "whisc", { store }), /did you mean "whisk"\?/);
  assert.throws(
    () => workflow("X", { tasks: { t: { inputs: { "1": input.string() }, run: noop } } }),
    /integer-like/,
  );
  assert.throws(
    () =>
      workflow("X", { tasks: { t: { inputs: { a: { type: "nope" as "string" } }, run: noop } } }),
    /unknown type "nope"/,
  );
});

Deno.test("long job names are shortened the Scout way", () => {
  const long = "x".repeat(200) + ".txt";
  const t = truncateJobName(long);
  assert.equal(t.length, 150);
  assert.ok(t.endsWith(`--204--${md5hex(long).slice(0, 5)}.txt`));
  assert.equal(truncateJobName("short"), "short");
});

Deno.test("dependencies: propagation, fixed options, fromInput/fromDep, jobname, override, block form", async () => {
  await using d = await tempDir();
  const st = jobStore({ env: { SCOUT_HOME: d.path }, cwd: d.path, jobsDir: join(d.path, "jobs") });
  const W = workflow("Chain", {
    tasks: {
      a: { type: "integer", inputs: { n: input.integer({ default: 1 }) }, run: noop },
      fixed: { type: "integer", inputs: {}, deps: [{ task: "a", inputs: { n: 5 } }], run: noop },
      passed: {
        type: "integer",
        inputs: { k: input.integer({ default: 3 }) },
        deps: [{ task: "a", inputs: { n: { fromInput: "k" } } }],
        run: noop,
      },
      named: {
        type: "integer",
        inputs: { who: input.string({ jobname: true }) },
        deps: ["a"],
        run: noop,
      },
      usesDep: {
        type: "integer",
        inputs: { v: input.integer() },
        deps: ["a", { task: "a", jobname: "other", inputs: { n: { fromDep: "a" } } }],
        run: noop,
      },
      fan: {
        type: "json",
        inputs: { count: input.integer({ default: 2 }) },
        deps: [{
          task: "a",
          resolve: (_id, o) =>
            Array.from({ length: o.count as number }, (_, i) => ({ inputs: { n: i + 10 } })),
        }],
        run: noop,
      },
    },
  });
  const fixed = createJob(W, "fixed", { inputs: { n: 9 }, store: st });
  assert.equal(fixed.deps[0]!.inputs.n, 5);
  assert.equal(fixed.name, "Default"); // n is fixed by the dep options: no digest for the parent
  const passed = createJob(W, "passed", { inputs: { k: 4 }, store: st });
  assert.equal(passed.deps[0]!.inputs.n, 4);
  // k not provided: the symbol itself, uncoerced (not the parent's default 3), §1.4
  assert.equal(createJob(W, "passed", { store: st }).deps[0]!.inputs.n, "k");
  const named = createJob(W, "named", { inputs: { who: "bob", n: 2 }, store: st });
  assert.equal(named.id, "bob");
  assert.match(named.deps[0]!.name, /^bob_[0-9a-f]{32}$/);
  assert.match(named.name, /^bob_[0-9a-f]{32}$/);
  assert.equal(createJob(W, "named", { inputs: { who: "bob" }, store: st }).name, "bob");
  // a name for this job alone: its dependencies are those of the Default job
  const own = createJob(W, "fixed", { jobname: "rerun-2", nameDependencies: false, store: st });
  assert.equal(own.id, "rerun-2");
  assert.equal(own.deps[0]!.path, fixed.deps[0]!.path);
  assert.equal(createJob(W, "fixed", { jobname: "rerun-2", store: st }).deps[0]!.id, "rerun-2");
  const ud = createJob(W, "usesDep", { store: st });
  assert.equal(ud.deps[1]!.id, "other");
  assert.equal(ud.deps[1]!.inputs.n, ud.deps[0]); // the job itself is the input value
  const fan = createJob(W, "fan", { inputs: { count: 3 }, store: st });
  assert.deepEqual(fan.deps.map((j) => j.inputs.n), [10, 11, 12]);
  // override: a provided "Chain#a" replaces the dependency and forces a digest
  const target = join(d.path, "jobs", "Chain", "a", "Custom");
  mkdirSync(join(d.path, "jobs", "Chain", "a"), { recursive: true });
  writeFileSync(target, "42");
  const over = createJob(W, "fixed", { inputs: { "Chain#a": target }, store: st });
  assert.equal(over.deps[0]!.path, target);
  assert.equal(over.deps[0]!.overriddenTask, "a");
  assert.match(over.name, /^Default_[0-9a-f]{32}$/);
  assert.deepEqual(recursiveInputs(W, "fixed").map((i) => i.name), []);
  assert.deepEqual(recursiveInputs(W, "passed").map((i) => i.name), ["k"]);
  assert.deepEqual(recursiveInputs(W, "named").map((i) => i.name), ["who", "n"]);
});

Deno.test("jobAt: a job known from disk, info names and relocated dependencies", async () => {
  await using d = await tempDir();
  const root = join(d.path, "var", "jobs");
  mkdirSync(join(root, "WF", "dep"), { recursive: true });
  mkdirSync(join(root, "WF", "top"), { recursive: true });
  writeFileSync(join(root, "WF", "dep", "Default"), "1");
  writeFileSync(join(root, "WF", "top", "Default.json"), "{}");
  writeFileSync(
    join(root, "WF", "top", "Default.json.info"),
    JSON.stringify({
      status: "done",
      task_name: "top",
      workflow: "WF",
      dependencies: [["WF", "dep", "/elsewhere/var/jobs/WF/dep/Default"], "/gone/WF/x/Y"],
      inputs: [1],
      input_names: ["n"],
    }),
  );
  const st = jobStore({ env: { SCOUT_HOME: join(d.path, "none") }, cwd: d.path });
  const j = jobAt("WF/top/Default.json", { store: st, cwd: d.path });
  assert.equal(j.type, "json");
  assert.deepEqual(j.inputs, ownRecord({ n: 1 }));
  assert.deepEqual(j.deps.map((x) => x.path), [join(root, "WF", "dep", "Default")]);
  assert.throws(
    () => jobAt("WF/top/Nope", { store: st, cwd: d.path }),
    (e) => isScoutError(e, "job_not_found"),
  );
});
