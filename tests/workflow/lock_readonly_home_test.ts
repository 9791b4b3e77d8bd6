/**
 * A `SCOUT_HOME` that refuses persist locks (read-only on a compute node,
 * another user's) with a writable jobs directory (R166-2): the job locks in
 * `<jobs>/.persist_locks` instead, told in one line; a process that can
 * write the home and one that cannot, running one job at once, still
 * compute it once (each looks at the other's lock after taking its own);
 * when the jobs root refuses it too, the error names SCOUT_HOME and what to
 * set. Through real processes; the other user via setpriv (as root).
 */
import assert from "node:assert/strict";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { DENO, runScout, SCOUT_SOURCE_ARGS, tempDir } from "../support/cli.ts";
import { userWorkflow } from "./cli_support.ts";

const NAP = (log: string) =>
  `import { appendFileSync, existsSync } from "node:fs";
export default (api) => api.workflow("Nap", { tasks: { nap: { type: "string",
  inputs: { ms: api.input.integer({ default: 10 }) },
  run: async ({ ms }) => {
    appendFileSync(${JSON.stringify(log)}, \`\${process.pid} start\\n\`);
    // naps ms, or until the test lets it go (a file "go" beside the log)
    const until = Date.now() + ms;
    while (Date.now() < until && !existsSync(${JSON.stringify(log + ".go")})) {
      await new Promise((r) => setTimeout(r, 50));
    }
    appendFileSync(${JSON.stringify(log)}, \`\${process.pid} end\\n\`);
    return \`napped in \${process.pid}\`;
  } } } });
`;

/** A store in `dir`: the workflow, a log open to all, a jobs dir open to all, a home. */
function store(dir: string) {
  chmodSync(dir, 0o755);
  const logs = join(dir, "logs");
  mkdirSync(logs, { mode: 0o777 });
  chmodSync(logs, 0o777);
  const log = join(logs, "nap.log");
  const wf = userWorkflow(dir, "Nap", NAP(log));
  const jobs = join(dir, "jobs");
  mkdirSync(jobs);
  chmodSync(jobs, 0o777);
  const home = join(dir, "home");
  mkdirSync(home);
  const denoDir = join(dir, ".deno");
  mkdirSync(denoDir);
  chmodSync(denoDir, 0o777);
  return { log, wf, jobs, home, denoDir };
}

Deno.test("workflow task: a home that refuses locks, a writable --jobs-dir: locks in the jobs dir (R166-2)", async () => {
  await using d = await tempDir();
  const s = store(d.path);
  writeFileSync(join(s.home, "tmp"), "a file where the lock directory's parent should be\n");
  const env = { SCOUT_HOME: s.home, HOME: s.home, NO_COLOR: "1" };
  const r = await runScout(["workflow", "task", s.wf, "nap", "--jobs-dir", s.jobs], {
    cwd: d.path,
    env,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^napped in \d+\n$/);
  const warn = r.stderr.split("\n").filter((l) => l.includes(".persist_locks"));
  assert.equal(warn.length, 1, r.stderr);
  assert.match(
    warn[0]!,
    new RegExp(
      `Cannot lock jobs in ".*home/tmp/persist_locks" \\(.+\\): locking the jobs of ".*jobs" in ".*jobs/\\.persist_locks" instead$`,
    ),
  );
  assert.deepEqual(readdirSync(join(s.jobs, ".persist_locks")), [], "no lock left behind");
  // SCOUT_JOBS_DIR alike, and a job already done is loaded without a word
  const again = await runScout(["workflow", "task", s.wf, "nap", "--ms", "11"], {
    cwd: d.path,
    env: { ...env, SCOUT_JOBS_DIR: s.jobs },
  });
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, /locking the jobs of .* instead/);
  // --recompute takes the job's lock to clean it: there too
  const re = await runScout(["workflow", "task", s.wf, "nap", "--recompute"], {
    cwd: d.path,
    env: { ...env, SCOUT_JOBS_DIR: s.jobs },
  });
  assert.equal(re.code, 0, re.stderr);
  assert.equal(readFileSync(s.log, "utf8").split("\n").filter((l) => l.endsWith("end")).length, 3);
});

Deno.test("workflow task: when the jobs root refuses the lock too, the error names SCOUT_HOME (R166-2)", async () => {
  await using d = await tempDir();
  const s = store(d.path);
  writeFileSync(join(s.home, "tmp"), "");
  writeFileSync(join(s.jobs, ".persist_locks"), "");
  const r = await runScout(["workflow", "task", s.wf, "nap", "--jobs-dir", s.jobs], {
    cwd: d.path,
    env: { SCOUT_HOME: s.home, HOME: s.home, NO_COLOR: "1" },
  });
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /Cannot lock the job ".*Nap\/nap\/Default": SCOUT_HOME's ".*home\/tmp\/persist_locks" refuses it \(.+\), and so does ".*jobs\/\.persist_locks" \(.+\); set SCOUT_HOME to a writable directory/,
  );
});

/** A child's output read as it comes: what its stderr holds so far, and its end. */
function collect(child: Deno.ChildProcess) {
  let err = "";
  const read = async (stream: ReadableStream<Uint8Array>, to: (t: string) => void) => {
    for await (const t of stream.pipeThrough(new TextDecoderStream())) to(t);
  };
  let out = "";
  const done = Promise.all([
    read(child.stdout, (t) => out += t),
    read(child.stderr, (t) => err += t),
    child.status,
  ]).then(([, , st]) => ({ code: st.code, stdout: out, stderr: err }));
  return { stderr: () => err, done };
}

/** `workflow task` of the slow nap, as this user or (`other`) as uid 54321 for whom the home is read-only. */
function spawnNap(
  s: ReturnType<typeof store>,
  cwd: string,
  other: boolean,
): Deno.ChildProcess {
  const args = [...SCOUT_SOURCE_ARGS, "workflow", "task", s.wf, "nap", "--ms", "120000"];
  const [cmd, argv] = other
    ? ["setpriv", ["--reuid=54321", "--regid=54321", "--clear-groups", DENO, ...args]]
    : [DENO, args];
  return new Deno.Command(cmd, {
    args: argv,
    cwd,
    clearEnv: true,
    env: {
      SCOUT_HOME: s.home,
      SCOUT_JOBS_DIR: s.jobs,
      HOME: s.home,
      NO_COLOR: "1",
      PATH: Deno.env.get("PATH") ?? "",
      ...(other ? { DENO_DIR: s.denoDir } : {}),
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

for (const otherFirst of [false, true]) {
  Deno.test({
    name:
      `workflow task: one process locking in the home, one in the jobs dir, compute a job once (${
        otherFirst ? "jobs-dir locker first" : "home locker first"
      }, R166-2)`,
    ignore: Deno.uid() !== 0,
    fn: async () => {
      await using d = await tempDir();
      const s = store(d.path);
      const first = spawnNap(s, d.path, otherFirst);
      const t0 = Date.now();
      while (!existsSync(s.log)) {
        if (Date.now() - t0 > 120_000) throw new Error("the first run's body never started");
        await new Promise((r) => setTimeout(r, 20));
      }
      const second = spawnNap(s, d.path, !otherFirst);
      const [ca, cb] = [collect(first), collect(second)];
      // the first naps until the second waits on a lock (told after 3 s) or runs the body itself
      const t1 = Date.now();
      while (
        readFileSync(s.log, "utf8").split("\n").length < 3 &&
        !cb.stderr().includes("waiting for lock")
      ) {
        if (Date.now() - t1 > 120_000) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      writeFileSync(s.log + ".go", "");
      const [a, b] = [await ca.done, await cb.done];
      assert.equal(a.code, 0, a.stderr);
      assert.equal(b.code, 0, b.stderr);
      const lines = readFileSync(s.log, "utf8").trim().split("\n");
      assert.deepEqual(lines, [`${first.pid} start`, `${first.pid} end`], "the body ran once");
      assert.equal(b.stdout, `napped in ${first.pid}\n`, "the second loads it");
      const jobsErr = otherFirst ? a.stderr : b.stderr;
      assert.match(jobsErr, /\(permission denied\): locking the jobs of/);
    },
  });
}
