/**
 * The `Step: <identity>` of a dependency is Ruby's `Resource.identify` of its
 * path (scout-essentials resource/util.rb): the working directory's jobs are
 * no Scout root, so they digest by absolute path (or `~/…` under the home),
 * and only `~/.scout` (and Scout's other maps with pkgdir `scout`) give
 * `var/jobs/…` (R85-1).
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { md5hex } from "../../src/util/hash.ts";
import { identifyJobPath } from "../../src/workflow/identify.ts";
import { jobStore } from "../../src/workflow/store.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { BAKING } from "./cli_support.ts";

/** [HOME, path, Ruby's Resource.identify(path)]: from running Ruby 3.1 + scout-essentials. */
const RUBY: [string, string, string][] = [];
for (
  const [home, rows] of Object.entries({
    "/home/fake": [
      ["/tmp/a-rb/w/var/jobs/P/w/X", "/tmp/a-rb/w/var/jobs/P/w/X"],
      ["{H}/.scout/var/jobs/P/w/X", "var/jobs/P/w/X"],
      ["{H}/proj/var/jobs/P/w/X", "~/proj/var/jobs/P/w/X"],
      ["/srv/var/jobs/W/t/N", "/srv/var/jobs/W/t/N"],
      ["/tmp/scout/var/jobs/W/t/N", "var/jobs/W/t/N"],
      ["/usr/local/var/scout/jobs/W", "var/jobs/W"],
      ["/x/scout/var/jobs/W/t/N", "x/var/jobs/W/t/N"],
      ["{H}/.rbbt/var/jobs/W/t/N", "~/.rbbt/var/jobs/W/t/N"],
      ["{H}/var/scout/jobs/W/t/N", "var/jobs/W/t/N"],
      ["/srv/a/../var/jobs/W", "/srv/var/jobs/W"],
      ["{H}", "~"],
      ["{H}/.scout", "~/.scout"],
      ["/", "/"],
      ["{H}x/a/b/c", "/home/fakex/a/b/c"],
      ["/usr/share/scout/var/jobs/W/t/N", "share/var/jobs/W/t/N"],
      ["/fast/var/scout/jobs/W", "var/jobs/W"],
      ["{H}/.scout/W", "W"],
      ["/tmp/a-rb/w/var/jobs/P/w/X\nY", "/tmp/a-rb/w/var/jobs/P/w/X\nY"],
      ["/tmp/scout/a", "a"],
    ],
    // Ruby's `home += home[0..-2]` for a home ending in "/": it never becomes "~"
    "/home/fake/": [
      ["/home/fake/.scout/var/jobs/P/w/X", "/home/fake/.scout/var/jobs/P/w/X"],
      ["/home/fake/proj/var/jobs/P/w/X", "/home/fake/proj/var/jobs/P/w/X"],
      ["/tmp/scout/var/jobs/W/t/N", "var/jobs/W/t/N"],
    ],
    // a user called "scout": the global map /{TOPLEVEL}/{PKGDIR}/… matches its home
    "/home/scout": [
      ["{H}/.scout/var/jobs/P/w/X", "var/jobs/P/w/X"],
      ["{H}/proj/var/jobs/P/w/X", "home/proj/var/jobs/P/w/X"],
      ["{H}/.rbbt/var/jobs/W/t/N", "home/.rbbt/var/jobs/W/t/N"],
      ["{H}", "home"],
    ],
  })
) {
  for (const [p, id] of rows) RUBY.push([home, p!.replace("{H}", home), id!]);
}

Deno.test("identifyJobPath gives Ruby's Resource.identify (R85-1)", () => {
  for (const [home, path, id] of RUBY) {
    const env = { HOME: home };
    const store = jobStore({ env, cwd: "/tmp/a-rb/w" });
    assert.equal(identifyJobPath(path, store, env), id, `HOME=${home} ${JSON.stringify(path)}`);
  }
});

Deno.test("identifyJobPath: a directory gets a trailing / as in Ruby; port stand-ins (R85-1)", async () => {
  await using d = await tempDir();
  const dir = join(d.path, "var/jobs/P/w/D");
  mkdirSync(dir, { recursive: true });
  const env = { HOME: "/home/fake" };
  const store = jobStore({ env, cwd: d.path });
  assert.equal(identifyJobPath(dir, store, env), dir + "/"); // Ruby: ".../D/"
  // a set SCOUT_HOME stands for ~/.scout, an explicit jobs directory for its var/jobs
  const sh = { HOME: "/home/fake", SCOUT_HOME: "/s" };
  assert.equal(identifyJobPath("/s/var/jobs/W/t/N", jobStore({ env: sh }), sh), "var/jobs/W/t/N");
  const explicit = jobStore({ env, jobsDir: "/j" });
  assert.equal(identifyJobPath("/j/W/t/N", explicit, env), "var/jobs/W/t/N");
});

/** Runs whisk into `<cwd>/var/jobs`, then batter with the whisk found there. */
async function batterOverCwdWhisk(cwd: string, home: string): Promise<string> {
  const w = await runMain(["workflow", "task", BAKING, "whisk", "--eggs", "3"], {
    cwd,
    env: { HOME: home, SCOUT_HOME: cwd, NO_COLOR: "1" },
  });
  assert.equal(w.code, 0, w.stderr);
  const b = await runMain(["workflow", "task", BAKING, "batter", "--eggs", "3", "--print-path"], {
    cwd,
    env: { HOME: home, NO_COLOR: "1" },
  });
  assert.equal(b.code, 0, b.stderr);
  return b.stdout.trim();
}

const WHISK = "Baking/whisk/Default_09c565660e3592e6a4001674e5a22269";

Deno.test("workflow task: a dependency in ./var/jobs digests by its absolute path (R85-1)", async () => {
  await using home = await tempDir();
  await using work = await tempDir();
  const got = await batterOverCwdWhisk(work.path, home.path);
  const step = `${work.path}/var/jobs/${WHISK}`;
  const name = "Default_" + md5hex(`{inputs=[0.500000], dependencies=[Step: ${step}]}`);
  assert.equal(got, join(home.path, ".scout/var/jobs/Baking/batter", name + ".json"));
});

Deno.test("workflow task: a dependency in ~/proj/var/jobs digests as ~/proj/… (R85-1)", async () => {
  await using home = await tempDir();
  const proj = join(home.path, "proj");
  mkdirSync(proj);
  const got = await batterOverCwdWhisk(proj, home.path);
  const name = "Default_" +
    md5hex(`{inputs=[0.500000], dependencies=[Step: ~/proj/var/jobs/${WHISK}]}`);
  assert.equal(got, join(home.path, ".scout/var/jobs/Baking/batter", name + ".json"));
});
