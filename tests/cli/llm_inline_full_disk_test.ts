/**
 * `--inline` on a full disk (R92-4): the replies were paid for but the file
 * cannot be rewritten. The file stays as it was (the rewrite is atomic), the
 * run fails (exit 1) naming it, and the replies are printed — on stdout, or
 * on stderr under `--json` (stdout is the JSON channel, which gets the
 * error document) — instead of lost.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { fullDisk } from "../support/full_disk.ts";
import { startProviderServer } from "../support/provider_server.ts";

const TEXT = "x = 1\n# ask: hi there\n";

Deno.test({
  name: "--inline on a full disk prints the replies it cannot write, then fails (R92-4)",
  fn: async () => {
    await using d = await tempDir();
    await using srv = await startProviderServer();
    await using disk = await fullDisk((p) => writeFileSync(join(p, "big.rb"), TEXT));
    const file = join(disk.path, "big.rb");
    const env = { SCOUT_HOME: join(d.path, "home"), OPENAI_API_KEY: "sk-x" };
    const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--no-cache"];
    srv.script({ text: "the paid answer" }, { text: "the second answer" });
    const r = await runMain(["llm", "ask", ...flags, "--inline", file], { env, cwd: d.path });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /Cannot write "[^"]*big\.rb": no space left on device/);
    assert.equal(
      r.stdout,
      `# ${file}:2: hi there\n# Response start\nthe paid answer\n# Response end\n`,
    );
    assert.equal(readFileSync(file, "utf8"), TEXT, "the file as it was");
    const j = await runMain(["llm", "ask", ...flags, "--json", "--inline", file], {
      env,
      cwd: d.path,
    });
    assert.equal(j.code, 1, j.stderr);
    // R128-6: stdout is the JSON channel: the failure as a document, the replies on stderr
    const doc = JSON.parse(j.stdout);
    assert.equal(doc.status, "error");
    assert.match(doc.error, /Cannot write "[^"]*big\.rb": no space left on device/);
    assert.match(j.stderr, /# Response start\nthe second answer\n# Response end\n/);
  },
});
