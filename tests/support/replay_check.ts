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
import { basename, join } from "node:path";
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

async function pickEntry(home: string): Promise<string> {
  const entries = await cacheEntries(home);
  const dated = await Promise.all(entries.map(async (e) => {
    const created = JSON.parse(await Deno.readTextFile(join(home, e))).created as string;
    return { e, created };
  }));
  dated.sort((a, b) => a.created.localeCompare(b.created) || a.e.localeCompare(b.e));
  // a middle one: a specialist's round rather than the root's first
  return dated[Math.floor(dated.length / 2)]!.e;
}

/**
 * Runs the check in `base` (a new temporary directory by default).
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
  // negative side: one entry gone ⇒ not_cached naming it, no answer
  const miss = join(dir, "miss");
  await seedReplay(recorded, miss, INPUTS);
  const entry = await pickEntry(join(miss, "home"));
  await Deno.remove(join(miss, "home", entry));
  const digest = basename(entry, ".json");
  const err = await runExample({ out: miss, plot: false, offline: true }).then(
    () => "",
    (e) => String((e as Error).message),
  );
  if (err === "") fail(`a replay without ${digest} succeeded`);
  else if (!/not_cached|no cached answer/.test(err) || !err.includes(digest)) {
    fail(`a replay without ${digest} failed otherwise:\n${err}`);
  } else lines.push(`without cache entry ${digest}: the replay fails with not_cached naming it`);
  lines.push(ok ? "replay-check: ok" : "replay-check: FAILED");
  return { ok, lines };
}

if (import.meta.main) {
  const i = Deno.args.indexOf("--out");
  const r = await replayCheck(i >= 0 ? Deno.args[i + 1] : undefined);
  console.log(r.lines.join("\n"));
  Deno.exit(r.ok ? 0 : 1);
}
