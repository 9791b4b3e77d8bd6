/**
 * The report's text store (`textSpill`): its texts move to an unlinked temp
 * file past `spillAt`, and where no temp directory can be had they stay in
 * memory — also for a library caller without env access, for whom
 * `os.tmpdir()` (it reads `TMPDIR`) throws: that is asked only when the texts
 * move, inside the fallback.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { textSpill } from "../../src/provenance/spill.ts";
import { tmp, write } from "./support.ts";

const SPILL = pathToFileURL(join(import.meta.dirname!, "../../src/provenance/spill.ts")).href;

Deno.test("textSpill: past spillAt the texts read back from the file", () => {
  const s = textSpill({ spillAt: 4 });
  const ids = ["hello", "wörld", "x".repeat(100_000)].map((t) => s.add(t));
  assert.deepEqual(ids.map((i) => s.get(i).length), [5, 5, 100_000]);
  assert.equal(s.get(ids[1]!), "wörld");
  s.close();
});

Deno.test("textSpill without env access: the texts stay in memory, nothing throws", async () => {
  await using d = await tmp();
  const script = write(
    join(d.path, "spill_no_env.ts"),
    `import { textSpill } from ${JSON.stringify(SPILL)};\n` +
      `const s = textSpill({ spillAt: 0 });\n` +
      `const a = s.add("hello"), b = s.add("world");\n` +
      `console.log(s.get(a), s.get(b));\n`,
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "--allow-read", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  assert.equal(new TextDecoder().decode(out.stdout), "hello world\n");
});
