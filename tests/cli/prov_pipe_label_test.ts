/**
 * `llm prov <(cat session.chat)` labels its root chat by the path the shell
 * gave (`/dev/fd/63`), not by that path's last part (`63`); a regular file
 * keeps its file name as label (R94-10). Run as a subprocess by a real bash.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DENO, SCOUT_SOURCE_ARGS, tempDir } from "../support/cli.ts";

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

Deno.test("R94-10: llm prov labels a root chat given as <(…) /dev/fd/N; a file by its name", async () => {
  await using d = await tempDir();
  writeFileSync(join(d.path, "session.chat"), "user: hello there\n");
  const fn = `scout() { ${[DENO, ...SCOUT_SOURCE_ARGS].map(quote).join(" ")} "$@"; }\n`;
  const out = await new Deno.Command("bash", {
    args: [
      "-c",
      fn + `scout llm prov <(cat session.chat); echo "tree=$?"
            scout llm prov <(cat session.chat) --json | grep '"kind":"chat"'
            scout llm prov session.chat; echo "file=$?"`,
    ],
    cwd: d.path,
    env: { NO_COLOR: "1", SCOUT_HOME: join(d.path, "home") },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.equal(new TextDecoder().decode(out.stderr), "");
  const [tree, json, file] = stdout.split(/(?<=tree=0\n)|(?<=\}\n)/);
  assert.match(tree!, /^chat \/dev\/fd\/\d+\ntree=0\n$/);
  assert.match(JSON.parse(json!.replace(/,\s*$/, "")).label, /^\/dev\/fd\/\d+$/);
  assert.equal(file, "chat session.chat\nfile=0\n");
});
