/**
 * Rewriting a named file in place (`src/util/in_place.ts`): through a
 * symbolic link to its target (the link stays, the mode is kept); a pipe or
 * a character device written straight, never replaced (R81-2); refused, with
 * the reason, for a link to nothing, a loop, a directory, a socket, a
 * read-only file or no writable directory.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { inPlace, inPlaceWrite, writeInPlace, writeInPlaceSync } from "../../src/util/in_place.ts";
import { writeFileAtomic, writeFileAtomicSync } from "../../src/util/fs.ts";
import { isScoutError } from "../../src/errors.ts";
import { tempDir } from "../support/cli.ts";
import { readToEndOrKill } from "../support/fifo.ts";

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
  using _socket = Deno.listen({ transport: "unix", path: at("socket") });
  const cases: [string, RegExp][] = [
    ["dangling", /a symbolic link to a file that does not exist/],
    ["loop1", /a loop of symbolic links/],
    ["dir", /it is a directory/],
    ["socket", /not a regular file, a pipe or a terminal/],
    ["ro", /the file is not writable/],
    ["plain/x", /is not a writable directory/],
  ];
  for (const [name, why] of cases) {
    assert.match(inPlace(at(name)).problem ?? "", why, name);
    assert.throws(() => inPlaceWrite(at(name), name), (e) => {
      assert.ok(isScoutError(e, "io"));
      assert.match((e as Error).message, new RegExp(`^Cannot write "${name}": `));
      return true;
    });
  }
  await assert.rejects(writeInPlace(at("ro"), "new"), (e) => isScoutError(e, "io"));
  assert.equal(Deno.readTextFileSync(at("ro")), "kept");
});

/** A FIFO and a character device (`/dev/null`'s numbers) made in `dir`: never the system's own. */
function streams(dir: string): { fifo: string; device: string } {
  const fifo = join(dir, "fifo");
  const device = join(dir, "null");
  assert(new Deno.Command("mkfifo", { args: [fifo] }).outputSync().success, "mkfifo");
  const made = new Deno.Command("mknod", { args: [device, "c", "1", "3"] }).outputSync();
  assert(made.success, "mknod (the tests run as root)");
  Deno.chmodSync(device, 0o666);
  return { fifo, device };
}

/** What a reader of `fifo` (a real `cat` process) gets while `write` runs; killed if left waiting. */
async function readFifo(fifo: string, write: () => Promise<unknown>): Promise<string> {
  const cat = new Deno.Command("cat", { args: [fifo], stdout: "piped" }).spawn();
  let read = "";
  try {
    await write();
  } finally {
    await readToEndOrKill(cat).then((text) => read = text);
  }
  return read;
}

Deno.test("R81-2: a FIFO, a character device and links to them are written straight, never replaced", async () => {
  await using dir = await tempDir();
  const { fifo, device } = streams(dir.path);
  const linkToFifo = join(dir.path, "out.chat");
  Deno.symlinkSync("fifo", linkToFifo);
  const linkToDevice = join(dir.path, "out.html");
  Deno.symlinkSync(device, linkToDevice);
  for (const path of [fifo, linkToFifo]) {
    assert.deepEqual(inPlace(path), { file: path, problem: null, stream: true });
    let written = "";
    const read = await readFifo(fifo, async () => written = await writeInPlace(path, "piped\n"));
    assert.equal(written, path);
    assert.equal(read, "piped\n");
  }
  for (const path of [device, linkToDevice]) {
    assert.deepEqual(inPlace(path), { file: path, problem: null, stream: true });
    await writeInPlace(path, "gone");
    writeInPlaceSync(path, new TextEncoder().encode("gone"));
  }
  assert(Deno.lstatSync(fifo).isFifo, "still a FIFO");
  assert(Deno.lstatSync(device).isCharDevice, "still a device");
  assert(Deno.lstatSync(linkToFifo).isSymlink, "the link stays");
  assert(Deno.lstatSync(linkToDevice).isSymlink, "the link stays");
  assert.deepEqual(Deno.readDirSync(dir.path).map((e) => e.name).toArray().sort(), [
    "fifo",
    "null",
    "out.chat",
    "out.html",
  ]);
});

Deno.test("R81-2: writeFileAtomic never renames over a pipe, a device or a link to one", async () => {
  await using dir = await tempDir();
  const { fifo, device } = streams(dir.path);
  const link = join(dir.path, "stdout");
  Deno.symlinkSync(device, link); // as /dev/stdout -> /proc/self/fd/1 -> a pipe or a terminal
  for (const path of [fifo, device, link]) {
    await assert.rejects(writeFileAtomic(path, "x"), (e) => {
      assert.ok(isScoutError(e, "io"));
      assert.match((e as Error).message, /not a regular file/);
      return true;
    });
    assert.throws(() => writeFileAtomicSync(path, "x"), /not a regular file/);
  }
  assert(Deno.lstatSync(fifo).isFifo);
  assert(Deno.lstatSync(device).isCharDevice);
  assert(Deno.lstatSync(link).isSymlink, "the link is not replaced");
  assert.equal(Deno.readDirSync(dir.path).toArray().length, 3, "no temp file left");
});
