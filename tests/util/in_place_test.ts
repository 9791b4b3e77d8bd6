/**
 * Rewriting a named file in place (`src/util/in_place.ts`): through a
 * symbolic link to its target (the link stays, the mode is kept); refused,
 * with the reason, for a link to nothing, a loop, a directory, a FIFO, a
 * read-only file or no writable directory.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { inPlace, inPlaceTarget, writeInPlace } from "../../src/util/in_place.ts";
import { isScoutError } from "../../src/errors.ts";
import { tempDir } from "../support/cli.ts";

Deno.test("writeInPlace: a link's target is rewritten, mode kept, the link stays", async () => {
  await using dir = await tempDir();
  const target = join(dir.path, "real.py");
  Deno.writeTextFileSync(target, "old");
  Deno.chmodSync(target, 0o750);
  const link = join(dir.path, "link.py");
  Deno.symlinkSync("real.py", link);
  assert.equal(await writeInPlace(link, "new"), target);
  assert.equal(Deno.lstatSync(link).isSymlink, true);
  assert.equal(Deno.readTextFileSync(target), "new");
  assert.equal(Deno.statSync(target).mode! & 0o777, 0o750);
  const fresh = join(dir.path, "a", "b", "new.chat");
  assert.deepEqual(inPlace(fresh), { file: fresh, problem: null }, "missing parents are made");
});

Deno.test("inPlace: what may not be rewritten, and why", async () => {
  await using dir = await tempDir();
  const at = (name: string) => join(dir.path, name);
  Deno.symlinkSync("missing/none", at("dangling"));
  Deno.symlinkSync("loop2", at("loop1"));
  Deno.symlinkSync("loop1", at("loop2"));
  Deno.mkdirSync(at("dir"));
  Deno.writeTextFileSync(at("ro"), "kept");
  Deno.chmodSync(at("ro"), 0o444); // no write bit: refused even to root
  Deno.writeTextFileSync(at("plain"), "");
  assert(new Deno.Command("mkfifo", { args: [at("fifo")] }).outputSync().success, "mkfifo");
  const cases: [string, RegExp][] = [
    ["dangling", /a symbolic link to a file that does not exist/],
    ["loop1", /a loop of symbolic links/],
    ["dir", /it is a directory/],
    ["fifo", /not a regular file/],
    ["ro", /the file is not writable/],
    ["plain/x", /is not a writable directory/],
  ];
  for (const [name, why] of cases) {
    assert.match(inPlace(at(name)).problem ?? "", why, name);
    assert.throws(() => inPlaceTarget(at(name), name), (e) => {
      assert.ok(isScoutError(e, "io"));
      assert.match((e as Error).message, new RegExp(`^Cannot write "${name}": `));
      return true;
    });
  }
  await assert.rejects(writeInPlace(at("ro"), "new"), (e) => isScoutError(e, "io"));
  assert.equal(Deno.readTextFileSync(at("ro")), "kept");
});
