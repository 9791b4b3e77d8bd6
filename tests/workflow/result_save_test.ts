/**
 * A task that returns a stream has its content saved as its result, the job
 * done only after; a value its result file cannot hold fails the job naming
 * the task and what it returned (R126-3: both were saved as `{}` and done).
 * Real jobs in a temp store.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Readable } from "node:stream";
import { workflow } from "../../src/workflow/define.ts";
import { createJob } from "../../src/workflow/job.ts";
import { runJob } from "../../src/workflow/run.ts";
import { jobInfo } from "../../src/workflow/info.ts";
import { homeIn, tempDir } from "../support/cli.ts";

const enc = new TextEncoder();

function lines(n: number): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(c) {
      if (i < n) c.enqueue(enc.encode(`line ${++i}\n`));
      else c.close();
    },
  });
}

class Opaque {
  #secret = 1;
  get secret(): number {
    return this.#secret;
  }
}

class Point {
  constructor(public x: number, public y: number) {}
}

function streamsWorkflow(dir: string) {
  return workflow("Streams", {
    jobsDir: join(dir, "jobs"),
    tasks: {
      web: { type: "text", run: () => lines(4) },
      node: { type: "text", run: () => Readable.from(["a\n", Buffer.from("b\n")]) },
      generated: {
        type: "text",
        run: async function* () {
          yield "x";
          yield enc.encode("y\n");
        },
      },
      blob: { type: "binary", run: () => new Blob(["raw bytes"]) },
      broken: {
        type: "text",
        run: () =>
          new ReadableStream({
            start(c) {
              c.enqueue(enc.encode("partial\n"));
              c.error(new Error("source went away"));
            },
          }),
      },
      numbers: { type: "text", run: () => Readable.from([1, 2]) },
      jsonStream: { type: "json", run: () => new Response('{"a":[1,2]}').body },
      notJson: { type: "json", run: () => new Response("not json").body },
      map: { type: "json", run: () => new Map([["a", 1]]) },
      set: { type: "text", run: () => new Set(["a"]) },
      fn: { type: "string", run: () => () => 1 },
      response: { type: "text", run: () => new Response("body") },
      opaque: { type: "text", run: () => new Opaque() },
      nested: { type: "json", run: () => ({ ok: [1, { inner: new Map() }] }) },
      items: { type: "array", run: () => ["a", new Set()] },
      point: { type: "json", run: () => ({ p: new Point(1, 2), when: new Date(0) }) },
    },
  });
}

/** The files of a job's directory besides its result and info (temp files). */
function leftovers(path: string): string[] {
  return readdirSync(dirname(path)).filter((n) => n.startsWith("."));
}

Deno.test("a returned stream is written to the result file, the job done after (R126-3)", async () => {
  await using d = await tempDir();
  const wf = streamsWorkflow(d.path);
  const env = homeIn(d.path);
  const cases: [string, string][] = [
    ["web", "line 1\nline 2\nline 3\nline 4\n"],
    ["node", "a\nb\n"],
    ["generated", "xy\n"],
    ["blob", "raw bytes"], // a stream is written as it is, as Ruby writes a returned IO
  ];
  for (const [task, text] of cases) {
    const job = createJob(wf, task, { env });
    const value = await runJob(job);
    assert.equal(readFileSync(job.path, "utf8"), text, task);
    assert.equal((await jobInfo(job.path))!.status, "done", task);
    assert.equal(
      typeof value === "string" ? value : new TextDecoder().decode(value as Uint8Array),
      text,
    );
    assert.deepEqual(leftovers(job.path), [], task);
  }
  // a json result's stream is checked before the job is done, and loads back (R129-5)
  const job = createJob(wf, "jsonStream", { env });
  assert.deepEqual(await runJob(job), { a: [1, 2] });
  assert.equal(readFileSync(job.path, "utf8"), '{"a":[1,2]}');
});

Deno.test("a stream that fails or yields no text leaves no result and fails the job (R126-3)", async () => {
  await using d = await tempDir();
  const wf = streamsWorkflow(d.path);
  const env = homeIn(d.path);
  for (
    const [task, message] of [
      ["broken", /source went away/],
      ["numbers", /Task "Streams\/numbers" returned a stream of a number/],
      // R129-5: done with a result no load could read, and stuck done
      ["notJson", /Task "Streams\/notJson" streamed text that is no "json" result: Invalid JSON/],
    ] as const
  ) {
    const job = createJob(wf, task, { env });
    await assert.rejects(runJob(job), message, task);
    assert.equal(existsSync(job.path), false, task);
    assert.equal((await jobInfo(job.path))!.status, "error", task);
    assert.deepEqual(leftovers(job.path), [], task);
  }
});

Deno.test("a value its result file cannot hold fails the job naming the task and the value (R126-3)", async () => {
  await using d = await tempDir();
  const wf = streamsWorkflow(d.path);
  const env = homeIn(d.path);
  const cases: [string, RegExp][] = [
    ["map", /Job ".*" failed: Task "Streams\/map" returned a Map, which a "json" result file/],
    ["set", /Task "Streams\/set" returned a Set, which a "text" result file cannot hold/],
    ["fn", /Task "Streams\/fn" returned a function, which a "string"/],
    ["response", /Task "Streams\/response" returned a Response, .*the response's body/],
    ["opaque", /Task "Streams\/opaque" returned an Opaque, which a "text"/],
    ["nested", /Task "Streams\/nested" returned a Map at "ok\[1\]\.inner", which a "json"/],
    ["items", /Task "Streams\/items" returned a Set at "\[1\]", which an "array"/],
  ];
  for (const [task, message] of cases) {
    const job = createJob(wf, task, { env });
    await assert.rejects(runJob(job), message, task);
    assert.equal(existsSync(job.path), false, `${task}: no result file`);
    const info = (await jobInfo(job.path))!;
    assert.equal(info.status, "error", task);
  }
  // data with a JSON form is saved as it was: fields of an instance, a Date's toJSON
  const point = createJob(wf, "point", { env });
  assert.deepEqual(await runJob(point), { p: { x: 1, y: 2 }, when: "1970-01-01T00:00:00.000Z" });
});
