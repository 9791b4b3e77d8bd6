/**
 * The recorded society (`fixtures/provenance/society/`) is what its recorder
 * (`fixtures/provenance/record_society.ts`) writes today: the example society
 * is recorded afresh into a temporary directory and compared with the
 * fixture, first by what `llm prov` says of both (tree, per agent and model,
 * JSON totals), then file by file with only what differs between any two
 * runs masked (inference ids, timestamps, a job's pid, host and times). When
 * the CLI starts writing something new (a receipt, a meta field), this fails
 * until the fixture is recorded again, so the README's "the same run is kept
 * as a fixture" stays true.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runMain } from "../support/cli.ts";
import { listTree, VOLATILE_INFO_KEYS } from "../support/replay.ts";
import { recordSociety, SOCIETY_FIXTURE } from "../../fixtures/provenance/record_society.ts";
import { tmp } from "./support.ts";

/** What two recordings of the same run may differ in, replaced by a placeholder. */
function maskVolatile(path: string, text: string): string {
  if (path.endsWith(".info")) {
    const info = JSON.parse(text);
    for (const k of [...VOLATILE_INFO_KEYS, "pid_hostname"]) if (k in info) info[k] = "*";
    return JSON.stringify(info);
  }
  return text
    .replace(/\b(timestamp|inference_id)=\S+/g, "$1=*")
    .replace(/"(start_timestamp|timestamp)":"[^"]*"/g, '"$1":"*"');
}

async function prov(dir: string, ...extra: string[]): Promise<string> {
  const r = await runMain(["llm", "prov", "plan.chat", "-J", "jobs", ...extra], {
    cwd: dir,
    env: { NO_COLOR: "1" },
  });
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

/** The figures of `llm prov --json` a drift would change. */
function keyFigures(json: string) {
  const doc = JSON.parse(json);
  return {
    totals: doc.totals,
    nodes: doc.nodes.map((n: { label: string | null; kind: string; tokens: unknown }) => [
      n.kind,
      n.label,
      n.tokens,
    ]),
    events: doc.events.length,
  };
}

Deno.test("society fixture: a fresh recording gives the same llm prov tree, table and JSON figures", async () => {
  await using d = await tmp();
  const fresh = join(d.path, "society");
  await recordSociety(fresh);
  assert.equal(await prov(SOCIETY_FIXTURE), await prov(fresh));
  assert.equal(
    await prov(SOCIETY_FIXTURE, "--by", "agent,model"),
    await prov(fresh, "--by", "agent,model"),
  );
  assert.deepEqual(
    keyFigures(await prov(SOCIETY_FIXTURE, "--json")),
    keyFigures(await prov(fresh, "--json")),
  );
  // and file by file, where two runs do not differ
  const files = await listTree(SOCIETY_FIXTURE);
  assert.deepEqual(files, await listTree(fresh));
  for (const f of files) {
    assert.equal(
      maskVolatile(f, await Deno.readTextFile(join(SOCIETY_FIXTURE, f))),
      maskVolatile(f, await Deno.readTextFile(join(fresh, f))),
      `${f} differs from a fresh recording: run tools/deno run -A fixtures/provenance/record_society.ts`,
    );
  }
});
