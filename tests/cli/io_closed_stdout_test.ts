/**
 * The process's stdout closed by its reader (`… | head -c 1`, R81-1), in real
 * processes under Deno (source) and Bun (the binary's runtime): a command
 * that only prints ends at once, exit 0; one that declared other work
 * (`finishWithoutStdout`: a save, a file) drops the rest of its output and
 * runs to its end, exit 0.
 */
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DENO, ROOT, tempDir } from "../support/cli.ts";

const BUN = join(ROOT, "tools", "node_modules", ".bin", "bun");

/** Writes 50 chunks of 64 KB, a pause after each, then a marker file (the "other work"). */
const SCRIPT = `import { writeFileSync } from "node:fs";
import { processIo } from ${JSON.stringify(join(ROOT, "src", "cli", "io.ts"))};
const [marker, finish] = process.argv.slice(2);
const io = processIo();
if (finish === "finish") io.finishWithoutStdout?.();
for (let i = 0; i < 50; i++) {
  io.stdout.write("x".repeat(65536));
  await new Promise((ok) => setTimeout(ok, 10));
}
writeFileSync(marker, "finished");
`;

for (const [runtime, cmd] of [["deno", `'${DENO}' run -A`], ["bun", `'${BUN}'`]] as const) {
  Deno.test(`${runtime}: a closed stdout ends a printing command at once, and lets one with work left finish it`, async () => {
    await using dir = await tempDir();
    const script = join(dir.path, "print.ts");
    writeFileSync(script, SCRIPT);
    for (const finish of ["", "finish"]) {
      const marker = join(dir.path, `marker-${finish}`);
      const out = await new Deno.Command("bash", {
        args: [
          "-c",
          `${cmd} '${script}' '${marker}' ${finish} | head -c 1; echo " $\{PIPESTATUS[0]}"`,
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const dec = new TextDecoder();
      assert.equal(dec.decode(out.stdout), "x 0\n", dec.decode(out.stderr));
      assert.equal(dec.decode(out.stderr), "");
      assert.equal(existsSync(marker), finish === "finish", `${runtime} ${finish || "print only"}`);
    }
  });
}
