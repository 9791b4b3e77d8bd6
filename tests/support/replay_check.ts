/**
 * `tools/deno task replay-check [--out DIR]`: the offline replay check on the
 * example society (fixtures/agents). Records the example once against the
 * loopback provider (`runExample`), moves the run aside, replays it offline
 * at the same path from the recording's agents, endpoint file and inference
 * cache only, with the provider stopped, and compares every file of the two
 * trees byte for byte (a job `.info`'s pid and wall-clock times masked), the
 * answer and `llm prov` output included. Then removes one cache entry and
 * checks that a replay fails with `not_cached` naming that digest. Exit 0
 * when everything holds, 1 otherwise (the differing files listed).
 */
import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import { parse } from "../../src/chat/parse.ts";
import { runExample } from "../../fixtures/agents/run.ts";
import {
  cacheEntries,
  describeDiff,
  diffTrees,
  listTree,
  prepareReplay,
  seedReplay,
  VOLATILE_INFO_KEYS,
} from "./replay.ts";

/** What a replay starts from: the recording's inputs and its cache. */
const INPUTS = ["home/Agent", "home/workflows", "home/etc", "home/var/cache"];

/** The result of {@link replayCheck}: report lines and whether all held. */
export interface ReplayCheck {
  ok: boolean;
  lines: string[];
}

/** Why a replay of `out` without the entry `digest` went wrong, or null when it failed as it must. */
async function missProblem(out: string, digest: string): Promise<string | null> {
  const err = await runExample({ out, plot: false, offline: true }).then(
    () => "",
    (e) => String((e as Error).message),
  );
  if (err === "") return `a replay without ${digest} succeeded`;
  if (!/no cached answer/.test(err) || !err.includes(`digest ${digest}`)) {
    return `a replay without ${digest} failed otherwise:\n${err}`;
  }
  // runExample's conversation (-c/-o plan.chat) holds no answer as if complete
  const chat = join(out, "plan.chat");
  const saved = existsSync(chat) ? parse(await Deno.readTextFile(chat)) : [];
  const last = saved.filter((m) => m.role !== "meta").at(-1);
  return last?.role === "assistant"
    ? `the replay without ${digest} saved an answer in ${chat}`
    : null;
}

/**
 * Runs the check in `base` (by default a new temporary directory, removed
 * afterwards unless the check failed).
 *
 * @param base working directory
 * @returns report lines and the verdict
 */
export async function replayCheck(base?: string): Promise<ReplayCheck> {
  const dir = base ?? await Deno.makeTempDir({ prefix: "scout-replay-check-" });
  const out = join(dir, "example");
  const lines: string[] = [];
  let ok = true;
  const fail = (m: string) => {
    ok = false;
    lines.push(`FAIL ${m}`);
  };
  const rec = await runExample({ out, plot: false });
  const entries = await cacheEntries(rec.home);
  const files = await listTree(out);
  lines.push(
    `recorded: ${rec.requests} provider requests, ${entries.length} cache entries, ${files.length} files (${out})`,
  );
  const recorded = await prepareReplay(out, INPUTS);
  const rep = await runExample({ out, plot: false, offline: true });
  lines.push(`replayed offline, provider stopped: ${rep.requests} provider requests`);
  if (rep.answer !== rec.answer) fail("the answer differs");
  if (rep.prov !== rec.prov) fail("the llm prov output differs");
  const diff = await diffTrees(recorded, out);
  const listed = describeDiff(diff);
  if (listed !== "") fail(`files differ:\n${listed}`);
  lines.push(
    `compared ${diff.compared} files: ${
      listed === "" ? "all byte-identical" : `${diff.differing.length} differ`
    } (job .info keys masked: ${VOLATILE_INFO_KEYS.join(", ")})`,
  );
  // negative side, at the same path (requests may hold it): each entry in turn removed ⇒
  // not_cached naming it, and the conversation saves no answer
  await Deno.rename(out, `${out}.replayed`);
  const named: string[] = [];
  for (const entry of entries) {
    await Deno.remove(out, { recursive: true }).catch(() => {});
    await seedReplay(recorded, out, INPUTS);
    await Deno.remove(join(out, "home", entry));
    const problem = await missProblem(out, basename(entry, ".json"));
    if (problem === null) named.push(entry);
    else fail(problem);
  }
  lines.push(
    `each of the ${entries.length} cache entries removed in turn: ${named.length} replays fail with not_cached naming it and save no answer`,
  );
  if (base === undefined && ok) await Deno.remove(dir, { recursive: true }); // its own temp dir
  else if (base === undefined) lines.push(`kept for inspection: ${dir}`);
  lines.push(ok ? "replay-check: ok" : "replay-check: FAILED");
  return { ok, lines };
}

if (import.meta.main) {
  const i = Deno.args.indexOf("--out");
  const r = await replayCheck(i >= 0 ? Deno.args[i + 1] : undefined);
  console.log(r.lines.join("\n"));
  Deno.exit(r.ok ? 0 : 1);
}
