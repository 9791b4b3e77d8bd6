/**
 * `llm prov` when a job's `.files` is not a directory (R142-2): a regular
 * file, a symbolic link to nothing or a link loop there hides the job's
 * logs — malformed evidence, said on stderr and as `complete: false`, never
 * a job without files (the totals halved without a word). A `.files` that
 * is truly absent is a job without files.
 */
import assert from "node:assert/strict";
import { cpSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runMain, tempDir } from "../support/cli.ts";

const SOCIETY = join(ROOT, "fixtures", "provenance", "society");

/** The society fixture in `dir`, and its Planner job's `.files` directory. */
function society(dir: string): { root: string; jobs: string; files: string } {
  cpSync(SOCIETY, dir, { recursive: true });
  const ask = join(dir, "jobs", "Planner", "ask");
  const name = readdirSync(ask).find((n) => n.endsWith(".chat.files"));
  assert.ok(name !== undefined, "the fixture's Planner job has a .files directory");
  return { root: join(dir, "plan.chat"), jobs: join(dir, "jobs"), files: join(ask, name) };
}

Deno.test("llm prov: a job's .files that is a file, a link to nothing or a loop is incomplete evidence (R142-2)", async () => {
  await using d = await tempDir();
  const env = { SCOUT_HOME: join(d.path, "home"), NO_COLOR: "1" };
  const s = society(join(d.path, "soc"));
  const prov = (json: boolean) =>
    runMain(["llm", "prov", s.root, "-J", s.jobs, ...(json ? ["--json"] : [])], {
      env,
      cwd: d.path,
    });
  renameSync(s.files, join(d.path, "files.bak"));
  const cases: [string, () => void, RegExp][] = [
    ["a file", () => writeFileSync(s.files, "x\n"), /Is a file, not a directory/],
    ["a link to nothing", () => symlinkSync("/nonexistent/x", s.files), /Dangling symbolic link/],
    ["a link loop", () => symlinkSync(s.files, s.files), /Cannot read .*(ELOOP|too many)/i],
  ];
  for (const [what, make, why] of cases) {
    rmSync(s.files, { force: true });
    make();
    const tree = await prov(false);
    assert.equal(tree.code, 0, tree.stderr);
    // before: no warning, no "(incomplete …)" line, the logs simply gone
    assert.match(tree.stderr, /Incomplete provenance at job .*\(log\)/, what);
    assert.match(tree.stderr, why, what);
    assert.ok(tree.stderr.includes(`"${s.files}"`), `${what}: ${tree.stderr}`);
    assert.match(tree.stdout, /\(incomplete: /, what);
    const json = await prov(true);
    // before: "complete": true
    assert.equal(JSON.parse(json.stdout).complete, false, what);
  }
  // truly absent: a job without files, complete
  rmSync(s.files, { force: true });
  const none = await prov(true);
  assert.equal(JSON.parse(none.stdout).complete, true, none.stderr);
  assert.equal(none.stderr, "");
});
