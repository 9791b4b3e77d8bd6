/**
 * The job-backed roles. The workflow engine (issue 4) implements
 * JobRoleResolver; here a small in-memory resolver stands in for it at that
 * interface, and job results are real files in a temp dir.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { compileText } from "../../src/chat/compile.ts";
import {
  JOB_CALL_ID_MAX,
  jobCallId,
  type JobRoleResolver,
  type JobSnapshot,
  parseTaskLine,
  type TaskRequest,
} from "../../src/chat/compile_jobs.ts";
import { isScoutError, ScoutError } from "../../src/errors.ts";
import { md5hex } from "../../src/util/hash.ts";
import { isolated, rc, tree } from "./compile_support.ts";

function resolver(dir: string) {
  const calls: string[] = [];
  const requests: TaskRequest[] = [];
  const jobs = new Map<string, JobSnapshot>();
  const r: JobRoleResolver = {
    async createJob(req) {
      requests.push(req);
      const name = req.jobname ?? "Default_abc";
      const path = `${dir}/${req.workflow}/${req.task}/${name}`;
      await Deno.mkdir(`${dir}/${req.workflow}/${req.task}`, { recursive: true });
      await Deno.writeTextFile(path, `result of ${req.task}`);
      jobs.set(path, {
        taskName: req.task,
        providedInputs: req.inputs,
        shortPath: `${req.workflow}/${req.task}/${name}`,
        status: "done",
        resultText: `result of ${req.task}`,
      });
      calls.push(`create ${req.role} ${req.workflow} ${req.task}`);
      return path;
    },
    produceJobs(paths) {
      calls.push(`produce ${paths.length}`);
    },
    execTask(req) {
      calls.push(`exec ${req.task}`);
      return `executed ${req.task} with n=${req.inputs.n}`;
    },
    loadJob(path) {
      calls.push(`load ${path.slice(dir.length + 1)}`);
      const j = jobs.get(path);
      if (j === undefined) throw new Error(`no job ${path}`);
      return j;
    },
    stepAnswer(metaJob, task) {
      calls.push(`step ${metaJob} ${task}`);
      return `answer of ${task} in ${metaJob}`;
    },
  };
  return { r, calls, requests, jobs };
}

Deno.test("without a resolver every job-backed role is not_available, naming role, file and line", async () => {
  const cases: [string, string][] = [
    ["task: Wf t", "task"],
    ["inline_task: Wf t", "inline_task"],
    ["exec_task: Wf t", "exec_task"],
    ["job: /x/Wf/t/Default", "job"],
    ["inline_job: /x/Wf/t/Default", "file"], // becomes a file reference
    ["meta: job=Wf/t/x\nstep: t", "step"],
  ];
  for (const [line, role] of cases) {
    const text = `system:\n\nS\n\n${line}\n`;
    const p = compileText(text, { ...isolated("/tmp"), name: "s.chat" });
    if (role === "file") {
      await assert.rejects(p, (e) => isScoutError(e, "file_not_found") && e.line === 5);
      continue;
    }
    await assert.rejects(p, (e) => {
      assert.ok(isScoutError(e, "not_available"), `${line}: ${e}`);
      assert.match(e.message, new RegExp(`^Role "${role}" needs the workflow engine`));
      assert.equal(e.file, "s.chat");
      assert.equal(e.line, line.startsWith("meta") ? 6 : 5);
      return true;
    });
  }
});

Deno.test("task → job → tool call + output; inline_task → <file> with the result; one produce for all", async () => {
  await using t = await tree({});
  const { r, calls, requests } = resolver(t.path);
  const out = await compileText(
    'user: go\ntask: Baking bake n=3 name="a b" jobname=first\ninline_task: Baking mix\nexec_task: Baking taste n=2\n',
    { ...isolated(t.path), jobs: r, origin: "s.chat" },
  );
  assert.deepEqual(calls, [
    "create task Baking bake",
    "create inline_task Baking mix",
    "exec taste",
    "produce 2",
    "load Baking/bake/first",
  ]);
  assert.deepEqual(requests[0], {
    role: "task",
    workflow: "Baking",
    task: "bake",
    inputs: { n: 3, name: "a b" },
    jobname: "first",
    origin: t.at("s.chat"),
  });
  assert.deepEqual(rc(out), [
    "user:go",
    'function_call:{"name":"bake","arguments":{"n":3,"name":"a b"},"id":"Baking-bake-first"}',
    'function_call_output:{"id":"Baking-bake-first","content":"result of bake"}',
    `user:<file name="${t.at("Baking/mix/Default_abc")}">\nresult of mix\n</file>`,
    "user:executed taste with n=2",
  ]);
});

Deno.test("job: failed → job_failed (or the exception as output with SCOUT_CHAT_JOB_EXCEPTION=true); unfinished → job_not_finished", async () => {
  await using t = await tree({});
  const { r, jobs } = resolver(t.path);
  jobs.set("/j/failed", {
    taskName: "t",
    providedInputs: {},
    shortPath: "Wf/t/Default_1",
    status: "error",
    exception: { message: "boom", stack: "at x" },
  });
  jobs.set("/j/running", {
    taskName: "t",
    providedInputs: {},
    shortPath: "Wf/t/r",
    status: "started",
  });
  const o = { ...isolated(t.path), jobs: r, name: "s.chat" };
  await assert.rejects(
    compileText("user: a\njob: /j/failed", o),
    (e) => isScoutError(e, "job_failed") && /boom/.test(e.message) && e.line === 2,
  );
  const out = await compileText("job: /j/failed", {
    ...o,
    env: { SCOUT_CHAT_JOB_EXCEPTION: "true" },
  });
  assert.equal(out[1]!.role, "function_call_output");
  const content = JSON.parse(JSON.parse(out[1]!.content as string).content);
  assert.deepEqual(content, { exception: "boom", stack: "at x" });
  await assert.rejects(
    compileText("job: /j/running", o),
    (e) => isScoutError(e, "job_not_finished") && e.file === "s.chat" && e.line === 1,
  );
  await assert.rejects(
    compileText("job: /j/unknown", o),
    (e) => isScoutError(e, "job_failed") && /no job/.test(e.message),
  );
});

Deno.test("step: answers from the last meta job; without one it is an error", async () => {
  await using t = await tree({});
  const { r, calls } = resolver(t.path);
  const o = { ...isolated(t.path), jobs: r, name: "s.chat" };
  const out = await compileText(
    "user: q\nmeta: job=Wf/a/1 pt=3\nmeta: pt=4\nmeta: job=Wf/b/2\nstep: review\n",
    o,
  );
  assert.deepEqual(calls, ["step Wf/b/2 review"]);
  assert.deepEqual(rc(out).slice(-1), ["assistant:answer of review in Wf/b/2"]);
  await assert.rejects(compileText("user: q\nstep: review", o), (e) => {
    assert.ok(isScoutError(e, "invalid_input"));
    assert.equal(e.message, "step: requires a meta job reference");
    assert.equal(e.line, 2);
    return true;
  });
  // A resolver failure is located at the step line, like the other job roles'.
  const failing = {
    ...r,
    stepAnswer: () => {
      throw new ScoutError("job_not_found", 'Job not found: "Wf/b/2"');
    },
  };
  await assert.rejects(
    compileText("user: q\nmeta: job=Wf/b/2\nstep: review", { ...o, jobs: failing }),
    (e) => isScoutError(e, "job_not_found") && e.file === "s.chat" && e.line === 3,
  );
});

Deno.test("step: [TS-FIX] the job of the last meta with a job= before the step line; later metas do not count (R80-2)", async () => {
  await using t = await tree({});
  const { r, calls } = resolver(t.path);
  const o = { ...isolated(t.path), jobs: r, name: "s.chat" };
  // Parity (Ruby reads the same): one `meta: job=` before the step, no meta after it.
  const one = await compileText("meta: job=Wf/a/1\nuser: summarise\nstep: first\n", o);
  assert.deepEqual(rc(one).slice(-1), ["assistant:answer of first in Wf/a/1"]);
  // Fixed: a reply's token meta after the step (Ruby: TypeError, its last meta has no job)…
  const tokens = await compileText(
    "meta: job=Wf/a/1\nuser: summarise\nstep: first\nassistant: ok\nmeta: pt=5 ct=3 tt=8\n",
    o,
  );
  assert.deepEqual(rc(tokens).slice(2, 3), ["assistant:answer of first in Wf/a/1"]);
  // …and another job's meta after it (Ruby would take Wf/b/2's `first`).
  const later = await compileText(
    "meta: job=Wf/a/1\nuser: q\nstep: first\nassistant: ok\nmeta: job=Wf/b/2\nassistant: other\n",
    o,
  );
  assert.deepEqual(rc(later).slice(2, 3), ["assistant:answer of first in Wf/a/1"]);
  assert.deepEqual(calls, ["step Wf/a/1 first", "step Wf/a/1 first", "step Wf/a/1 first"]);
});

Deno.test("task lines: workflow and task are required", () => {
  assert.throws(() => parseTaskLine("task", "Baking"), (e) => isScoutError(e, "invalid_input"));
  assert.throws(() => parseTaskLine("task", "Baking n=3"), (e) => isScoutError(e, "invalid_input"));
  assert.deepEqual(parseTaskLine("exec_task", "  Wf\t t  list=a,b "), {
    role: "exec_task",
    workflow: "Wf",
    task: "t",
    inputs: { list: ["a", "b"] },
  });
});

Deno.test("jobCallId [TS-FIX]: Ruby's id when short and clean, else a digest form providers accept (R80-9)", () => {
  // parity: short and clean ids are Ruby's
  assert.equal(jobCallId("Baking/bake/Default_1f2e"), "Baking-bake-1f2e");
  // Ruby: Log.truncate_string(…, 40) → "VeryLongWo<...57 - ae9ae...>56789abcdef", which Anthropic refuses
  const long = "VeryLongWorkflowName/some_long_task_name/Default_0123456789abcdef";
  const longId = "VeryLongWorkflowName-some_long_task_name-0123456789abcdef";
  assert.equal(jobCallId(long), "VeryLongWorkflowName-some_long_" + md5hex(longId).slice(0, 9));
  assert.notEqual(jobCallId(long + "x"), jobCallId(long));
  // Ruby: "Baking-bake-party.json" (the `.` is refused too)
  assert.equal(
    jobCallId("Baking/bake/party.json"),
    "Baking-bake-party_json_" + md5hex("Baking-bake-party.json").slice(0, 9),
  );
  assert.notEqual(jobCallId("Baking/bake/party_json"), jobCallId("Baking/bake/party.json"));
  fc.assert(
    fc.property(fc.string({ unit: "grapheme", minLength: 1, maxLength: 80 }), (name) => {
      const id = jobCallId(`Wf/task/${name}`);
      assert.ok(id.length <= JOB_CALL_ID_MAX, id);
      assert.match(id, /^[a-zA-Z0-9_-]+$/);
    }),
    { numRuns: 500 },
  );
});
