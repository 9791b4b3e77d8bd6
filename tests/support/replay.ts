/**
 * Record → replay → diff, generically: a run directory is recorded once (the
 * provider answering), moved aside, then replayed at the same absolute path
 * (paths inside chats, logs and job info stay the same) from a fresh tree
 * that holds only the run's inputs and the recorded inference cache, with
 * the provider stopped. {@link diffTrees} then compares every file of the two
 * trees byte for byte. The only bytes allowed to differ are a job `.info`'s
 * process bookkeeping ({@link VOLATILE_INFO_KEYS}: the pid and host and the
 * job store's wall-clock times, which belong to the process that ran the
 * job, not to what the run produced; a failed job's stack frames, which
 * belong to the program that ran it).
 */
import { join, relative } from "node:path";

/**
 * `.info` keys a replay does not reproduce: who ran the job (`pid`, and
 * `pid_hostname`, `os.hostname()`: another on another machine), when, and a
 * failed job's `backtrace` and `exception` (its Ruby-marshalled class,
 * message and backtrace): the runtime's stack frames, which name the
 * install's paths (`/$bunfs/…` in the binary, the source files under Deno),
 * so a replay by the binary of a run recorded from source differs there
 * alone. The failure's message is compared all the same, in `messages`.
 */
export const VOLATILE_INFO_KEYS: readonly string[] = [
  "pid",
  "pid_hostname",
  "issued",
  "start",
  "end",
  "time_elapsed",
  "total_time_elapsed",
  "backtrace",
  "exception",
];

/** Every file under `root`, relative, sorted. */
export async function listTree(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(dir)) {
      const p = join(dir, e.name);
      if (e.isDirectory) await walk(p);
      else out.push(relative(root, p));
    }
  };
  await walk(root);
  return out.sort();
}

/** Copies a directory tree (files and directories). */
export async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    if (e.isDirectory) await copyTree(join(from, e.name), join(to, e.name));
    else if (e.isFile) await Deno.copyFile(join(from, e.name), join(to, e.name));
  }
}

function masked(path: string, bytes: Uint8Array): string | Uint8Array {
  if (!path.endsWith(".info")) return bytes;
  const text = new TextDecoder().decode(bytes);
  try {
    const info = JSON.parse(text);
    for (const k of VOLATILE_INFO_KEYS) if (k in info) info[k] = "<volatile>";
    return JSON.stringify(info);
  } catch {
    return text;
  }
}

function same(a: string | Uint8Array, b: string | Uint8Array): boolean {
  if (typeof a === "string" || typeof b === "string") return a === b;
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** What {@link diffTrees} found. */
export interface TreeDiff {
  /** Files present in both trees. */
  compared: number;
  /** Files whose bytes differ. */
  differing: string[];
  /** Files only in the recording. */
  onlyRecorded: string[];
  /** Files only in the replay. */
  onlyReplayed: string[];
}

/** Compares two trees file by file (`.info` bookkeeping masked). */
export async function diffTrees(recorded: string, replayed: string): Promise<TreeDiff> {
  const a = await listTree(recorded);
  const b = await listTree(replayed);
  const inB = new Set(b);
  const inA = new Set(a);
  const differing: string[] = [];
  let compared = 0;
  for (const f of a) {
    if (!inB.has(f)) continue;
    compared++;
    const x = masked(f, await Deno.readFile(join(recorded, f)));
    const y = masked(f, await Deno.readFile(join(replayed, f)));
    if (!same(x, y)) differing.push(f);
  }
  return {
    compared,
    differing,
    onlyRecorded: a.filter((f) => !inB.has(f)),
    onlyReplayed: b.filter((f) => !inA.has(f)),
  };
}

/** A diff as lines for a message (empty when the trees are the same). */
export function describeDiff(d: TreeDiff): string {
  return [
    ...d.differing.map((f) => `differs: ${f}`),
    ...d.onlyRecorded.map((f) => `missing in the replay: ${f}`),
    ...d.onlyReplayed.map((f) => `only in the replay: ${f}`),
  ].join("\n");
}

/**
 * Seeds a fresh `dir` with inputs of a recording (relative paths: files or
 * directories, e.g. the agents, workflows, endpoint files and the inference
 * cache); paths the recording lacks are skipped.
 */
export async function seedReplay(
  recorded: string,
  dir: string,
  inputs: readonly string[],
): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  for (const p of inputs) {
    const st = await Deno.stat(join(recorded, p)).catch(() => null);
    if (st === null) continue;
    if (st.isDirectory) await copyTree(join(recorded, p), join(dir, p));
    else {
      await Deno.mkdir(join(dir, p, ".."), { recursive: true });
      await Deno.copyFile(join(recorded, p), join(dir, p));
    }
  }
}

/**
 * Moves the recorded run aside (`<dir>.rec`) and seeds a fresh `dir` with
 * the given inputs of the recording ({@link seedReplay}).
 *
 * @returns the recording's new path
 */
export async function prepareReplay(dir: string, inputs: readonly string[]): Promise<string> {
  const rec = `${dir}.rec`;
  await Deno.remove(rec, { recursive: true }).catch(() => {});
  await Deno.rename(dir, rec);
  await seedReplay(rec, dir, inputs);
  return rec;
}

/** The inference cache entries of a SCOUT_HOME (`var/cache/ask/*.json`), relative to `home`. */
export async function cacheEntries(home: string): Promise<string[]> {
  const dir = join("var", "cache", "ask");
  return (await listTree(join(home, dir)).catch(() => [] as string[]))
    .filter((f) => f.endsWith(".json")).map((f) => join(dir, f));
}
