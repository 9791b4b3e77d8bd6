/**
 * A caller's cancellation of `runJob` (R105-3): a chat task's agent asks with
 * the job's signal, so its inference stops without the provider's reply, and
 * the caller's promise rejects with `job_aborted` — for a plain body that
 * honours `job.signal` too. The provider (loopback) holds its reply 30 s, or
 * until the test ends: the error, `job_aborted` rather than the `job_failed`
 * of a run that got its reply, proves the inference stopped.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { workflow } from "../../src/workflow/define.ts";
import { createJob } from "../../src/workflow/job.ts";
import { runJob } from "../../src/workflow/run.ts";
import { jobInfo } from "../../src/workflow/info.ts";
import { isScoutError } from "../../src/errors.ts";
import { chatTask } from "../../src/agent/mod.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { homeIn, tempDir } from "../support/cli.ts";
import { waitUntil } from "../support/wait.ts";

/** Asserts `run` rejected with `job_aborted`, naming the job. */
async function assertAborted(run: Promise<unknown>, shortPath: string): Promise<void> {
  await assert.rejects(run, (e: unknown) => {
    assert.ok(isScoutError(e), String(e));
    assert.equal(e.code, "job_aborted", e.message);
    assert.equal(e.message, `Job "${shortPath}" was cancelled`);
    return true;
  });
}

Deno.test("chat task: cancelling runJob stops the agent's inference and rejects with job_aborted (R105-3)", async () => {
  await using dir = await tempDir();
  // the reply is held 30 s, or until the test ends
  let release = () => {};
  const held = new Promise<void>((r) => {
    const timer = setTimeout(r, 30_000);
    release = () => {
      clearTimeout(timer);
      r();
    };
  });
  await using srv = await startProviderServer({ script: [{ text: "too late", until: held }] });
  try {
    const home = homeIn(dir.path);
    const base = { backend: "openai", url: srv.url, model: "m", persist: false };
    const wf = workflow("Cancel", {
      jobsDir: join(dir.path, "jobs"),
      tasks: chatTask(
        "talk",
        async ({ agent, chat }) =>
          await agent(null, { chat: chat(), options: base, runtime: { env: home } }),
      ),
    });
    const job = createJob(wf, "talk", { env: home, inputs: { chat: "user: SLOWREPLY" } });
    const controller = new AbortController();
    const run = runJob(job, { signal: controller.signal });
    await waitUntil("the first request", () => srv.requests.length === 1);
    controller.abort();
    await assertAborted(run, job.shortPath);
    assert.equal(srv.requests[0]!.firstByteAt, undefined, "settled before the provider's reply");
    assert.equal((await jobInfo(job.path))?.status, "aborted");
  } finally {
    release();
  }
});

Deno.test("runJob: a body that honours job.signal, cancelled by its caller, rejects with job_aborted (R105-3)", async () => {
  await using dir = await tempDir();
  let started = false;
  const wf = workflow("Cancel", {
    jobsDir: join(dir.path, "jobs"),
    tasks: {
      nap: {
        type: "string",
        run: (_inputs, job) => {
          started = true;
          return new Promise<string>((_resolve, reject) =>
            job.signal.addEventListener("abort", () => reject(new Error("stopped")))
          );
        },
      },
    },
  });
  const job = createJob(wf, "nap", { env: homeIn(dir.path) });
  const controller = new AbortController();
  const run = runJob(job, { signal: controller.signal });
  await waitUntil("the task to start", () => started);
  controller.abort();
  await assertAborted(run, job.shortPath);
  assert.equal((await jobInfo(job.path))?.status, "aborted");
  // a caller cancelled before the run: the same error
  await assertAborted(runJob(job, { signal: AbortSignal.abort() }), job.shortPath);
});
