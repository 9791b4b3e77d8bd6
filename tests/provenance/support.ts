/**
 * Builders for provenance tests (`provenance.md` §11): chats with receipts
 * (`rc`), jobs with dependencies and logs (`mkJob`), written into real temp
 * directories with the project's chat printer.
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ROOT } from "../support/cli.ts";
import { spawnSync } from "node:child_process";
import assert from "node:assert/strict";
import { print } from "../../src/chat/print.ts";
import type { Message } from "../../src/chat/types.ts";
import type {
  OnError,
  ProvenanceError,
  TraversalRecord,
  TraverseOptions,
} from "../../src/provenance/types.ts";

/** A meta line's content: `pt=.. ct=.. tt=.. inference_id=id` (ct omitted when undefined). */
export function tok(id: string | null, pt: number, ct: number | undefined, tt: number): string {
  const parts = [`pt=${pt}`];
  if (ct !== undefined) parts.push(`ct=${ct}`);
  parts.push(`tt=${tt}`);
  if (id !== null) parts.push(`inference_id=${id}`);
  return parts.join(" ");
}

/** A receipt entry `{role: "meta", content}`. */
export function entry(content: string): { role: string; content: string } {
  return { role: "meta", content };
}

/** A meta message. */
export function meta(content: string): Message {
  return { role: "meta", content };
}

/**
 * `rc(receipts, extra)`: `user: Run the worker` (indices 0, 1), then per
 * receipt an `ask` call with id `cid` and its output carrying `agent_meta`
 * (outputs at 3, 5, 7…), then `extra` messages, then `assistant: done`.
 */
export function rc(receipts: Record<string, unknown>, extra: Message[] = []): string {
  const chat: Message[] = [{ role: "user", content: "Run the worker" }];
  for (const [cid, agentMeta] of Object.entries(receipts)) {
    chat.push({
      role: "function_call",
      content: JSON.stringify({
        name: "ask",
        arguments: { agent: "Worker", prompt: "do it" },
        id: cid,
      }),
    });
    chat.push({
      role: "function_call_output",
      content: JSON.stringify({ name: "ask", content: "done it", id: cid, agent_meta: agentMeta }),
    });
  }
  chat.push(...extra, { role: "assistant", content: "done" });
  return print(chat);
}

/** Writes a file, creating directories. */
export function write(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/**
 * `mkJob(path, deps, logs)`: a job at `path` with a result file, an `.info`
 * (always: status done, plus deps and extra info), and log chats
 * `{relative: text}` under `path.files/log/`.
 */
export function mkJob(
  path: string,
  deps: string[] | null = null,
  logs: Record<string, string> = {},
  info: Record<string, unknown> | null = null,
  result: string | null = "done\n",
): string {
  mkdirSync(dirname(path), { recursive: true });
  if (result !== null) writeFileSync(path, result);
  // Every job has its `.info` (a path is a job only with `.info` or `.files`).
  writeFileSync(
    path + ".info",
    JSON.stringify({ status: "done", ...info, ...(deps === null ? {} : { dependencies: deps }) }),
  );
  for (const [rel, text] of Object.entries(logs)) write(join(path + ".files", "log", rel), text);
  return path;
}

/** An onError that records `[code, kind, nodePath, relation, reference]` tuples. */
export function recorder(): {
  onError: OnError;
  errors: {
    error: ProvenanceError;
    kind: string;
    path: string;
    relation: string | null;
    reference: unknown;
  }[];
} {
  const errors: {
    error: ProvenanceError;
    kind: string;
    path: string;
    relation: string | null;
    reference: unknown;
  }[] = [];
  return {
    errors,
    onError: (error, kind, node, relation, reference) =>
      errors.push({ error, kind, path: node.path, relation, reference }),
  };
}

/** A fresh temp dir (realpath'd, so canonical paths equal it), removed on dispose. */
export async function tmp(): Promise<{ path: string } & AsyncDisposable> {
  const path = Deno.realPathSync(await Deno.makeTempDir({ prefix: "scout-prov-" }));
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }).catch(() => {}),
  };
}

/**
 * Runs a TypeScript snippet in a subprocess that cannot read files with mode
 * 000: as the unprivileged user `nobody` (via `setpriv`) when this process
 * is root, else as this user. `$ROOT` in the code is replaced by a copy of
 * the repository's `src/` parent (`$ROOT/src/...` imports work). The snippet must print JSON on stdout, which is returned.
 * `dir` and its parents must be traversable by `nobody` (see {@link openDir}).
 */
export async function runUnprivileged(dir: string, code: string): Promise<unknown> {
  // A copy of src/: the checkout itself may not be readable by `nobody`.
  const copy = join(dir, ".src");
  mkdirSync(copy, { recursive: true });
  const cp = await new Deno.Command("cp", { args: ["-r", join(ROOT, "src"), join(copy, "src")] })
    .output();
  if (!cp.success) throw new Error(`cannot copy src/: ${new TextDecoder().decode(cp.stderr)}`);
  chmodSync(copy, 0o755);
  const script = join(dir, "unprivileged.ts");
  writeFileSync(script, code.replaceAll("$ROOT", copy));
  chmodSync(script, 0o644);
  const denoDir = join(dir, ".deno");
  mkdirSync(denoDir, { recursive: true });
  chmodSync(denoDir, 0o777);
  const deno = ["run", "-A", "--no-lock", "--no-config", script];
  const env = { HOME: dir, DENO_DIR: denoDir, NO_COLOR: "1", PATH: Deno.env.get("PATH") ?? "" };
  const [cmd, args] = Deno.uid() === 0
    ? [
      "setpriv",
      ["--reuid=65534", "--regid=65534", "--clear-groups", await denoForNobody(dir), ...deno],
    ] as const
    : [Deno.execPath(), deno] as const;
  const out = await new Deno.Command(cmd, { args: [...args], env, clearEnv: true }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (out.code !== 0) {
    throw new Error(
      `unprivileged run failed (${out.code}):\n${new TextDecoder().decode(out.stderr)}`,
    );
  }
  return JSON.parse(text);
}

/** The deno binary, or a copy in `dir` when `nobody` cannot run it where it is. */
async function denoForNobody(dir: string): Promise<string> {
  const probe = await new Deno.Command("setpriv", {
    args: ["--reuid=65534", "--regid=65534", "--clear-groups", Deno.execPath(), "--version"],
    stdout: "null",
    stderr: "null",
  }).output().catch(() => ({ success: false }));
  if (probe.success) return Deno.execPath();
  const copy = join(dir, ".deno-bin", "deno");
  mkdirSync(dirname(copy), { recursive: true });
  Deno.copyFileSync(Deno.execPath(), copy);
  chmodSync(dirname(copy), 0o755);
  chmodSync(copy, 0o755);
  return copy;
}

/** Makes a temp dir and everything in it traversable/readable by other users (not mode-000 files). */
export function openDir(dir: string): void {
  chmodSync(dir, 0o755);
}

/** Fixture C (§11 test 14): Critic `c`, Dep `1`, Worker `w` (deps [Dep]), a parent chat. */
export function fixtureC(dir: string): { parent: string; c: string; w: string; dep: string } {
  const c = mkJob(join(dir, "jobs/Agents/critic/c"));
  const dep = mkJob(join(dir, "jobs/Agents/dep/1"));
  const w = mkJob(join(dir, "jobs/Agents/worker/w"), [dep], {
    "agent.chat": rc(
      { wc1: [entry(tok("c1", 30, 10, 40)), entry("job=Agents/critic/c")] },
      [meta(tok("w1", 100, 50, 150)), meta(tok("w2", 20, 10, 30))],
    ),
  });
  const parent = write(
    join(dir, "parent.chat"),
    rc(
      { p1: [entry(tok("shadow", 10, undefined, 12)), entry("job=Agents/worker/w")] },
      [meta("job=Agents/critic/c")],
    ),
  );
  return { parent, c, w, dep };
}

/**
 * Fixture B (§11 tests 25, 31, 32): fixture A's parent (receipts w1, w2 and
 * its own p1) plus a `meta: job=` marker to the worker job, whose log holds
 * w1, w2 and w3 (w1 at index 3).
 */
export function fixtureB(dir: string): string {
  mkJob(join(dir, "jobs/Wf/ask/W"), [], {
    "agent.chat": "system: You are the worker\n\nuser: go\n\n" +
      `meta: ${tok("w1", 100, 50, 150)}\n\nassistant: one\n\n` +
      `meta: ${tok("w2", 20, 10, 30)}\n\nassistant: two\n\n` +
      `meta: ${tok("w3", 5, 5, 10)}\n\nassistant: three\n`,
  });
  return write(
    join(dir, "parent.chat"),
    rc({ a1: [entry(tok("w1", 100, 50, 150)), entry(tok("w2", 20, 10, 30))] }, [
      meta(tok("p1", 60, 40, 100)),
      meta("job=Wf/ask/W"),
    ]),
  );
}

/** Renders DOT with Graphviz to SVG; fails the test on any dot error. */
export function assertRenders(dot: string): void {
  const r = spawnSync("dot", ["-Tsvg"], { input: dot, encoding: "utf8" });
  assert.equal(r.error, undefined, "Graphviz dot must be installed");
  assert.equal(r.status, 0, r.stderr);
  assert.ok(r.stdout.includes("<svg"), "dot produced SVG");
}

/** One traversal record as `[relation, kind, path relative to base, firstVisit]`. */
export type Row = [string | null, string, string, boolean];
/** The records as {@link Row}s. */
export function rows(records: Iterable<TraversalRecord>, base: string): Row[] {
  return [...records].map((r) => [
    r.relation,
    r.kind,
    r.node.path.startsWith(base + "/") ? r.node.path.slice(base.length + 1) : r.node.path,
    r.firstVisit,
  ]);
}

/** Traversal options rooted at `dir`, its `jobs/` the job root. */
export function opts(dir: string, extra: TraverseOptions = {}): TraverseOptions {
  return { cwd: dir, jobRoots: [join(dir, "jobs")], ...extra };
}

/** The chat-task job `copiedAnswer` writes (a Planner `ask` job). */
export const COPIED_JOB = "Planner/ask/Default_cefe35d22d3230689b5106496c2f2c0e.chat";

/** A `function_call` message. */
export function toolCall(name: string, args: unknown, id: string): Message {
  return { role: "function_call", content: JSON.stringify({ name, arguments: args, id }) };
}

/** A `function_call_output` message, started at 04:21:24 and answered at 04:21:`at`. */
export function toolOutput(name: string, id: string, content: string, at = "24.000"): Message {
  return {
    role: "function_call_output",
    content: JSON.stringify({
      name,
      content,
      id,
      start_timestamp: "2026-12-06T04:21:24.000Z",
      timestamp: `2026-12-06T04:21:${at}Z`,
    }),
  };
}

/** The Planner's answer: a failed `schedule` (exception `boom`), a lookup, its reply. */
export const PLANNER_ANSWER: Message[] = [
  toolCall("schedule", { bakes: ["boom"] }, "call_s1"),
  toolOutput("schedule", "call_s1", JSON.stringify({ exception: "boom" }), "24.001"),
  toolCall("lookup", { topic: "flour" }, "call_l1"),
  toolOutput("lookup", "call_l1", "bread flour", "24.250"),
  { role: "assistant", content: "planned" },
];

/**
 * A chat-task job whose log (`agent.chat`: the question, a token meta, then
 * {@link PLANNER_ANSWER}; its calls are messages 3 and 5 as parsed), result
 * chat and the session asking it (`plan.chat`) hold the same answer — each
 * call three times — as `agent ask Planner -o plan.chat` leaves them (R111-4).
 *
 * @returns the session and the jobs root
 */
export function copiedAnswer(dir: string): { root: string; jobs: string } {
  const jobs = join(dir, "jobs");
  const question: Message = { role: "user", content: "plan" };
  const marker: Message = { role: "meta", content: `job=${COPIED_JOB}` };
  mkJob(
    join(jobs, COPIED_JOB),
    null,
    { "agent.chat": print([question, meta(tok("i1", 10, 1, 11)), ...PLANNER_ANSWER]) },
    { workflow: "Planner", task_name: "ask", type: "chat" },
    print([marker, ...PLANNER_ANSWER]),
  );
  return {
    root: write(join(dir, "plan.chat"), print([question, marker, ...PLANNER_ANSWER])),
    jobs,
  };
}
