import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  infoDependencies,
  infoDependencyProblems,
  infoError,
  isTruncatedInput,
  jobInfo,
  mergeJobInfo,
  readJobInfo,
  truncateInputValue,
  updateJobInfo,
  writeJobInfo,
} from "../../src/workflow/info.ts";
import { isScoutError } from "../../src/errors.ts";
import { parseRubyTime, rubyTime } from "../../src/workflow/time.ts";
import { tempDir } from "../support/cli.ts";

Deno.test("rubyTime: Ruby Time#to_s shape, round-trips through parseRubyTime", () => {
  const d = new Date(2026, 11, 2, 7, 55, 28);
  const t = rubyTime(d);
  assert.match(t, /^2026-12-02 07:55:28 [+-]\d{4}$/);
  assert.equal(parseRubyTime(t)?.getTime(), d.getTime());
  assert.equal(
    parseRubyTime("2026-12-02 07:55:28 +0000")?.toISOString(),
    "2026-12-02T07:55:28.000Z",
  );
  assert.equal(parseRubyTime("yesterday"), null);
});

Deno.test("merge rule: arrays append, objects merge, scalars replace, message → messages", () => {
  const a = mergeJobInfo(
    { status: "start", messages: ["a"], provided_inputs: { x: 1 }, dependencies: ["/d1"] },
    { status: "log", message: "b", provided_inputs: { y: 2 }, dependencies: "/d2", extra: 1 },
  );
  assert.deepEqual(a, {
    status: "log",
    messages: ["a", "b"],
    provided_inputs: { x: 1, y: 2 },
    dependencies: ["/d1", "/d2"],
    extra: 1,
  });
  assert.deepEqual(mergeJobInfo({}, { message: "first" }), { messages: ["first"] });
  assert.deepEqual(mergeJobInfo({ tags: ["a"] }, { tags: ["b", "c"] }), { tags: ["a", "b", "c"] });
  assert.deepEqual(Object.keys(mergeJobInfo({ b: 1, a: 2 }, { c: 3, a: 4 })), ["b", "a", "c"]);
});

Deno.test("write/update: atomic JSON, unknown keys preserved, compact", async () => {
  await using d = await tempDir();
  const job = join(d.path, "WF", "t", "Default");
  await writeJobInfo(job, { status: "setup", children_pids: [1], archived_info: { k: 1 } });
  await updateJobInfo(job, { status: "done", children_pids: [2] });
  const text = readFileSync(job + ".info", "utf8");
  assert.equal(
    text,
    '{"status":"done","children_pids":[1,2],"archived_info":{"k":1}}',
  );
});

Deno.test("tolerant reader: missing, Marshal, truncated, unreadable, not an object", async () => {
  await using d = await tempDir();
  const job = join(d.path, "j");
  assert.deepEqual(await readJobInfo(job), { info: null, problem: null });
  writeFileSync(job + ".info", '\u0004\b{\u0006:\u000bstatusI"\tdone');
  let r = await readJobInfo(job);
  assert.deepEqual(r.info, { status: "noinfo" });
  assert.match(r.problem!, /Ruby Marshal/);
  writeFileSync(job + ".info", '{"status":"done","inp');
  r = await readJobInfo(job);
  assert.deepEqual(r.info, { status: "noinfo" });
  assert.match(r.problem!, /not valid JSON/);
  writeFileSync(job + ".info", "[1,2]");
  assert.match((await readJobInfo(job)).problem!, /not a JSON object/);
  writeFileSync(job + ".info", '{"status":"weird-custom","foo":1}');
  assert.deepEqual(await jobInfo(job), { status: "weird-custom", foo: 1 });
  if (Deno.uid() !== 0) {
    chmodSync(job + ".info", 0o000);
    assert.match((await readJobInfo(job)).problem!, /permission denied/);
    chmodSync(job + ".info", 0o644);
  }
  mkdirSync(join(d.path, "dir.info"));
  assert.match((await readJobInfo(join(d.path, "dir"))).problem!, /Cannot read info file/);
});

Deno.test("update refuses to overwrite a non-JSON info", async () => {
  await using d = await tempDir();
  const job = join(d.path, "j");
  writeFileSync(job + ".info", "\u0004\bgarbage");
  await assert.rejects(
    () => updateJobInfo(job, { status: "x" }),
    (e) => isScoutError(e, "job_info_unreadable"),
  );
  assert.equal(readFileSync(job + ".info", "utf8"), "\u0004\bgarbage");
});

Deno.test("dependencies: plain strings and Scout's [wf, task, path] arrays", () => {
  assert.deepEqual(
    infoDependencies({ dependencies: ["/a", ["WF", "t", "/b"], 3, []] } as never),
    ["/a", "/b"],
  );
  assert.deepEqual(infoDependencies(null), []);
  assert.deepEqual(infoDependencies({ dependencies: "nope" } as never), []);
});

Deno.test("dependencies: the entries infoDependencies skips are warned about, one each (R88-9)", () => {
  const info = { dependencies: ["/a", ["WF", "t", "/b"], 3, [], null] } as never;
  assert.deepEqual(infoDependencyProblems(info, "/j"), [
    'Dependency 3 of job "/j" does not resolve to a job (not a path); not listed',
    'Dependency [] of job "/j" does not resolve to a job (not a path); not listed',
    'Dependency null of job "/j" does not resolve to a job (not a path); not listed',
  ]);
  assert.deepEqual(infoDependencyProblems({ dependencies: ["/a"] } as never, "/j"), []);
  assert.deepEqual(infoDependencyProblems(null, "/j"), []);
  assert.deepEqual(infoDependencyProblems({ dependencies: 5 } as never, "/j"), [
    'Dependencies of job "/j" are 5, not a list; none listed',
  ]);
});

Deno.test("input truncation: first 70, ..., last 30, marker", () => {
  const long = Array.from({ length: 150 }, (_, i) => i);
  const t = truncateInputValue(long) as unknown[];
  assert.equal(t.length, 102);
  assert.deepEqual(t.slice(68, 72), [68, 69, "...", 120]);
  assert.equal(t[101], "TRUNCATED only 100 out of 150 shown");
  assert.ok(isTruncatedInput(t));
  assert.deepEqual(truncateInputValue([1, 2]), [1, 2]);
  assert.equal(isTruncatedInput([1, 2]), false);
});

Deno.test("infoError reads the last Class: message entry", () => {
  assert.deepEqual(infoError({ messages: ["x", "ScoutException: bad x"] }), {
    className: "ScoutException",
    message: "bad x",
  });
  assert.equal(infoError({ messages: ["just text"] }), null);
  assert.equal(infoError(null), null);
});
