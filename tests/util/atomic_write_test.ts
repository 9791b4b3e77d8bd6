/**
 * Atomic writes (`src/util/fs.ts`): the content lands whole, missing
 * directories are made, no temp file is left, a failed write keeps the old
 * content and names the file, and a replaced file keeps its mode, owner and
 * group as far as allowed — for the asynchronous and the synchronous form
 * alike.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { writeFileAtomic, writeFileAtomicSync } from "../../src/util/fs.ts";
import { isScoutError } from "../../src/errors.ts";
import { tempDir } from "../support/cli.ts";

const names = (dir: string) => [...Deno.readDirSync(dir)].map((e) => e.name).sort();

for (
  const [form, write] of [
    ["writeFileAtomic", writeFileAtomic],
    [
      "writeFileAtomicSync",
      // deno-lint-ignore require-await
      async (p: string, d: string | Uint8Array) => writeFileAtomicSync(p, d),
    ],
  ] as const
) {
  Deno.test(`${form}: whole content, missing directories made, no temp file left`, async () => {
    await using home = await tempDir();
    const file = join(home.path, "a", "b", "chat.chat");
    await write(file, "user:\n\nhé\n");
    assert.equal(Deno.readTextFileSync(file), "user:\n\nhé\n");
    await write(file, new Uint8Array([104, 105]));
    assert.equal(Deno.readTextFileSync(file), "hi");
    const big = "x".repeat(3_000_000);
    await write(file, big);
    assert.equal(Deno.readTextFileSync(file), big);
    assert.deepEqual(names(join(home.path, "a", "b")), ["chat.chat"]);
  });

  Deno.test(`${form}: a failed write keeps the old content, names the file, leaves no temp`, async () => {
    await using home = await tempDir();
    const target = join(home.path, "result");
    Deno.mkdirSync(join(target, "inside"), { recursive: true }); // a non-empty directory: rename fails
    await assert.rejects(write(target, "new"), (e) => {
      assert.ok(isScoutError(e, "io"));
      assert.equal((e as { file?: string }).file, target);
      return true;
    });
    assert.deepEqual(names(home.path), ["result"]);
    assert.deepEqual(names(target), ["inside"]);
  });

  Deno.test(`${form}: a symbolic link is replaced by the file, its target untouched (callers resolve links)`, async () => {
    await using home = await tempDir();
    Deno.writeTextFileSync(join(home.path, "target"), "old");
    const link = join(home.path, "link");
    Deno.symlinkSync("target", link);
    await write(link, "new");
    assert.equal(Deno.lstatSync(link).isFile, true);
    assert.equal(Deno.readTextFileSync(link), "new");
    assert.equal(Deno.readTextFileSync(join(home.path, "target")), "old");
  });

  Deno.test(`${form}: a replaced file keeps its permission bits; a new one gets the default`, async () => {
    await using home = await tempDir();
    const file = join(home.path, "private.chat");
    Deno.writeTextFileSync(file, "old");
    Deno.chmodSync(file, 0o600);
    await write(file, "new");
    assert.equal(Deno.statSync(file).mode! & 0o777, 0o600);
    Deno.chmodSync(file, 0o640);
    await write(file, "newer");
    assert.equal(Deno.statSync(file).mode! & 0o777, 0o640);
    Deno.chmodSync(file, 0o4750); // setuid: not kept
    await write(file, "newest");
    assert.equal(Deno.statSync(file).mode! & 0o7777, 0o750);
    const fresh = join(home.path, "fresh.chat");
    await write(fresh, "x");
    const umask = Deno.umask();
    assert.equal(Deno.statSync(fresh).mode! & 0o777, 0o666 & ~umask);
  });

  Deno.test(`${form}: a replaced file keeps its owner and group where allowed (root: both)`, async () => {
    if (Deno.uid() !== 0) {
      throw new Error("this test gives files away: it needs root (CI runs as root)");
    }
    await using home = await tempDir();
    const file = join(home.path, "theirs.chat");
    Deno.writeTextFileSync(file, "old");
    Deno.chownSync(file, 4321, 8765);
    Deno.chmodSync(file, 0o640);
    await write(file, "new");
    const st = Deno.statSync(file);
    assert.deepEqual([st.uid, st.gid, st.mode! & 0o777], [4321, 8765, 0o640]);
    assert.equal(Deno.readTextFileSync(file), "new");
  });
}

/**
 * Runs a synchronous atomic write of `file` as nobody (setpriv): the module
 * bundled into `dir` and, when the checkout is not nobody's to read (a clone
 * under /root), Bun copied there too.
 */
async function asNobody(dir: string, file: string): Promise<Deno.CommandOutput> {
  const bun = Deno.realPathSync(
    new URL("../../tools/node_modules/.bin/bun", import.meta.url).pathname,
  );
  const script = join(dir, "w.js");
  const src = join(dir, "w.ts");
  const fs = new URL("../../src/util/fs.ts", import.meta.url).pathname;
  Deno.writeTextFileSync(
    src,
    `import { writeFileAtomicSync } from ${JSON.stringify(fs)};\n` +
      `writeFileAtomicSync(process.argv[2], "by nobody\\n");\n`,
  );
  const built = await new Deno.Command(bun, {
    args: ["build", src, "--target=node", "--outfile", script],
    stdout: "null",
  }).output();
  assert.equal(built.code, 0);
  Deno.chmodSync(script, 0o644);
  const nobody = (cmd: string, args: string[]) =>
    new Deno.Command("setpriv", {
      args: ["--reuid=65534", "--regid=65534", "--clear-groups", cmd, ...args],
      env: { HOME: dir },
      stdout: "null",
      stderr: "piped",
    }).output();
  let runtime = bun;
  if ((await nobody(bun, ["--version"])).code !== 0) {
    runtime = join(dir, "bun");
    Deno.copyFileSync(bun, runtime);
    Deno.chmodSync(runtime, 0o755);
  }
  return await nobody(runtime, [script, file]);
}

Deno.test("a user who may not give the group away still writes, and the file is theirs", async () => {
  if (Deno.uid() !== 0) throw new Error("this test runs a write as another user: it needs root");
  await using home = await tempDir();
  Deno.chmodSync(home.path, 0o777);
  const file = join(home.path, "shared.chat");
  Deno.writeTextFileSync(file, "old");
  Deno.chownSync(file, 65534, 0); // nobody's file, in root's group (nobody is not in it)
  Deno.chmodSync(file, 0o664);
  const out = await asNobody(home.path, file);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const st = Deno.statSync(file);
  assert.equal(Deno.readTextFileSync(file), "by nobody\n");
  assert.deepEqual([st.uid, st.gid, st.mode! & 0o777], [65534, 65534, 0o664]);
});
