/**
 * Real processes on one job store: two CLI processes asking for the same job
 * (one computes, both print the result), kill -9 mid-run (nothing partial
 * visible, the next run recomputes), SIGINT/SIGTERM (info says aborted).
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runScout, spawnScout, tempDir } from "../support/cli.ts";

const SLOW = join(ROOT, "fixtures", "workflows", "Slow");

async function waitFor(cond: () => boolean, what: string, ms = 20_000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function info(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path + ".info", "utf8"));
}

function napping(path: string): boolean {
  try {
    return info(path).status === "napping";
  } catch {
    return false;
  }
}

function locks(home: string): string[] {
  try {
    return readdirSync(join(home, "tmp", "persist_locks"));
  } catch {
    return [];
  }
}

Deno.test("two processes ask for the same job at once: one computes, both print the result", async () => {
  await using d = await tempDir();
  const log = join(d.path, "runs.log");
  const env = { SCOUT_HOME: d.path, SLOW_LOG: log };
  const args = ["workflow", "task", SLOW, "nap", "--seconds", "1.5"];
  const [a, b] = await Promise.all([runScout(args, { env }), runScout(args, { env })]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(b.code, 0, b.stderr);
  assert.equal(a.stdout, "Slept 1.5\n");
  assert.equal(b.stdout, a.stdout);
  assert.equal(readFileSync(log, "utf8").trim().split("\n").length, 1);
  assert.deepEqual(locks(d.path), []);
});

Deno.test("kill -9 mid-run: not done, no partial result, the next run recomputes cleanly", async () => {
  await using d = await tempDir();
  const log = join(d.path, "runs.log");
  const env = { SCOUT_HOME: d.path, SLOW_LOG: log };
  const job = join(d.path, "var/jobs/Slow/nap/Default_");
  const args = ["workflow", "task", SLOW, "nap", "--seconds", "30", "--print-path"];
  const child = spawnScout(args, { env });
  const dir = join(d.path, "var/jobs/Slow/nap");
  let path = "";
  await waitFor(() => {
    const f = existsSync(dir) ? readdirSync(dir).find((n) => n.endsWith(".info")) : undefined;
    path = f ? join(dir, f.slice(0, -5)) : "";
    return path !== "" && napping(path);
  }, "the job to start napping");
  assert.ok(path.startsWith(job));
  child.kill("SIGKILL");
  await child.status;
  await child.stdout.cancel();
  await child.stderr.cancel();
  assert.equal(existsSync(path), false, "no result after kill -9");
  assert.equal(info(path).status, "napping");
  assert.equal(locks(d.path).length, 1, "the dead process's lock is left behind");
  const again = await runScout(args, { env: { ...env, SLOW_SLEEP: "0.1" } });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stdout, path + "\n");
  assert.equal(readFileSync(path, "utf8"), "Slept 30");
  assert.equal(info(path).status, "done");
  assert.equal(existsSync(join(dir, ".Default" + path.slice(path.lastIndexOf("_")))), false);
  assert.equal(readFileSync(log, "utf8").trim().split("\n").length, 2, "recomputed once more");
  assert.deepEqual(locks(d.path), []);
});

for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
  Deno.test(`${signal} mid-run: info says aborted, no result, lock and tmp removed`, async () => {
    await using d = await tempDir();
    const env = { SCOUT_HOME: d.path };
    const child = spawnScout(["workflow", "task", SLOW, "nap"], {
      env: { ...env, SLOW_SLEEP: "30" },
    });
    const path = join(d.path, "var/jobs/Slow/nap/Default");
    await waitFor(() => napping(path), "the job to start napping");
    assert.ok(
      existsSync(join(d.path, "var/jobs/Slow/nap/.Default")),
      "the body wrote its tmp file",
    );
    child.kill(signal);
    const status = await child.status;
    await child.stdout.cancel();
    await child.stderr.cancel();
    assert.equal(status.code, code);
    const i = info(path);
    assert.deepEqual(Object.keys(i), [
      "status",
      "issued",
      "pid",
      "pid_hostname",
      "task_name",
      "workflow",
      "provided_inputs",
      "non_default_inputs",
      "inputs",
      "input_names",
      "type",
      "dependencies",
      "start",
      "messages",
      "end",
    ]);
    assert.deepEqual(
      { ...i, issued: 0, start: 0, end: 0, pid: 0, pid_hostname: 0 },
      {
        status: "aborted",
        issued: 0,
        pid: 0,
        pid_hostname: 0,
        task_name: "nap",
        workflow: "Slow",
        provided_inputs: {},
        non_default_inputs: [],
        inputs: [1],
        input_names: ["seconds"],
        type: "string",
        dependencies: [],
        start: 0,
        messages: ["Napping 1s", `Aborted: interrupted by ${signal}`],
        end: 0,
      },
    );
    assert.equal(i.status, "aborted");
    assert.match(String(i.end), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4}$/);
    assert.deepEqual((i.messages as string[]).at(-1), `Aborted: interrupted by ${signal}`);
    assert.equal(existsSync(path), false);
    assert.equal(existsSync(join(d.path, "var/jobs/Slow/nap/.Default")), false);
    assert.deepEqual(locks(d.path), []);
    const rerun = await runScout(["workflow", "task", SLOW, "nap"], {
      env: { ...env, SLOW_SLEEP: "0.1" },
    });
    assert.equal(rerun.stdout, "Slept 1\n", rerun.stderr);
  });
}

Deno.test("kill -9: workflow info/list show the job as stale, not as napping for ever", async () => {
  await using d = await tempDir();
  const env = { SCOUT_HOME: d.path };
  const child = spawnScout(["workflow", "task", SLOW, "nap"], {
    env: { ...env, SLOW_SLEEP: "30" },
  });
  const path = join(d.path, "var/jobs/Slow/nap/Default");
  await waitFor(() => napping(path), "the job to start napping");
  const show = async () => {
    const j = await runScout(["workflow", "info", path, "--json"], { env });
    assert.equal(j.code, 0, j.stderr);
    const t = await runScout(["workflow", "info", path], { env });
    const l = await runScout(["workflow", "list", SLOW, "--json"], { env });
    const lt = await runScout(["workflow", "list", SLOW], { env });
    return {
      json: JSON.parse(j.stdout),
      text: t.stdout,
      list: JSON.parse(l.stdout),
      listText: lt.stdout,
    };
  };
  const pid = info(path).pid;
  const alive = await show();
  assert.equal(alive.json.status, "napping");
  assert.equal(alive.json.running, true);
  assert.equal(alive.json.process, "alive");
  assert.equal(alive.json.stale, false);
  assert.match(alive.text, new RegExp(`status +napping \\(running, pid ${pid}\\) \\(no result\\)`));
  assert.deepEqual(
    alive.list.tasks[0].jobs.map((j: Record<string, unknown>) => [j.name, j.status, j.running]),
    [["Default", "napping", true]],
  );
  child.kill("SIGKILL");
  await child.status;
  await child.stdout.cancel();
  await child.stderr.cancel();
  assert.equal(info(path).status, "napping", "nothing rewrote the info: the process is dead");
  const dead = await show();
  assert.equal(dead.json.status, "stale");
  assert.equal(dead.json.running, false);
  assert.equal(dead.json.process, "gone");
  assert.equal(dead.json.stale, true);
  assert.equal(dead.json.info.status, "napping", "the recorded status is kept in info");
  assert.match(
    dead.text,
    new RegExp(`status +stale \\(was napping; its process ${pid}@\\S+ is gone\\) \\(no result\\)`),
  );
  assert.deepEqual(
    dead.list.tasks[0].jobs.map((j: Record<string, unknown>) => [j.status, j.running, j.process]),
    [["stale", false, "gone"]],
  );
  assert.match(
    dead.listText,
    /^ {2}stale {4}Default {2}\(was napping; its process \d+@\S+ is gone\)$/m,
  );
});
