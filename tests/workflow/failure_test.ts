import assert from "node:assert/strict";
import { join } from "node:path";
import { workflow } from "../../src/workflow/define.ts";
import { createJob } from "../../src/workflow/job.ts";
import { runJob } from "../../src/workflow/run.ts";
import { jobInfo } from "../../src/workflow/info.ts";
import { errorInfoPatch } from "../../src/workflow/failure.ts";
import { isScoutError, ScoutError } from "../../src/errors.ts";
import { locateError } from "../../src/llm/error_location.ts";
import { errorOutput } from "../../src/tools/content.ts";
import { homeIn, tempDir } from "../support/cli.ts";

Deno.test("a failure patch for a null-prototype object is recorded (R75-2)", () => {
  const patch = errorInfoPatch(Object.create(null));
  assert.equal(patch.status, "error");
  assert.deepEqual(patch.messages, ["RuntimeError: {}"]);
});

Deno.test("whatever a body throws, the job is recorded as error naming it (R75-2)", async () => {
  await using d = await tempDir();
  const wf = workflow("Throws", {
    jobsDir: join(d.path, "jobs"),
    tasks: {
      nullProto: {
        run: () => {
          throw Object.create(null);
        },
      },
      plain: {
        run: () => {
          throw { code: 42 };
        },
      },
      bare: {
        run: () => {
          throw new Error();
        },
      },
    },
  });
  const cases: Record<string, string> = {
    nullProto: "RuntimeError: {}",
    plain: 'RuntimeError: {"code":42}',
    bare: "RuntimeError: Error",
  };
  for (const [task, message] of Object.entries(cases)) {
    const job = createJob(wf, task, { env: homeIn(d.path) });
    await assert.rejects(runJob(job), (e) => {
      assert.ok(isScoutError(e, "job_failed"), String((e as Error)?.message));
      assert.equal(e.job, job.path);
      assert.match(e.message, new RegExp(`^Job "Throws/${task}/Default" failed: `));
      return true;
    });
    const info = (await jobInfo(job.path))!;
    assert.equal(info.status, "error", task);
    assert.deepEqual(info.messages, [message], task);
  }
});

Deno.test("a failed job's .info names a url of its error without the password or key (R83-1)", async () => {
  await using d = await tempDir();
  const wf = workflow("ThrowsUrl", {
    jobsDir: join(d.path, "jobs"),
    tasks: {
      fetches: {
        run: () => {
          throw new Error("Cannot fetch http://bob:PW-4411@h:8/x?token=TK-2299&n=1");
        },
      },
    },
  });
  const job = createJob(wf, "fetches", { env: homeIn(d.path) });
  await assert.rejects(runJob(job));
  const text = await Deno.readTextFile(`${job.path}.info`);
  assert.ok(!text.includes("PW-4411") && !text.includes("TK-2299"), text);
  const info = (await jobInfo(job.path))!;
  assert.deepEqual(info.messages, [
    "RuntimeError: Cannot fetch http://bob:***@h:8/x?token=***&n=1",
  ]);
  // the exception Ruby reads is the Marshal dump of the same message
  const dumped = new TextDecoder("latin1").decode(
    Uint8Array.from(atob(String(info.exception).replace(/\n/g, "")), (c) => c.charCodeAt(0)),
  );
  assert.ok(dumped.includes("http://bob:***@h:8") && !dumped.includes("PW-4411"));
});

Deno.test("a failed job's error keeps its cause's message without the notes for the user, for a tool output (R84-3)", async () => {
  await using d = await tempDir();
  const wf = workflow("ThrowsLocated", {
    jobsDir: join(d.path, "jobs"),
    tasks: {
      asks: {
        run: () => {
          const e = new ScoutError("provider_http", "HTTP 500: boom", { phase: "query" });
          locateError(e, { endpoint: "lb", url: "http://10.0.0.9:8000" });
          throw e;
        },
      },
    },
  });
  const job = createJob(wf, "asks", { env: homeIn(d.path) });
  const e = await runJob(job).then(() => null, (x) => x);
  assert.match(e.message, /boom \(endpoint "lb", url http:\/\/10\.0\.0\.9:8000\)$/);
  const out = JSON.parse(String(errorOutput(e).content));
  assert.equal(out.exception, 'Job "ThrowsLocated/asks/Default" failed: HTTP 500: boom');
});
