/**
 * Atomic writes (`src/util/fs.ts`): the content lands whole, missing
 * directories are made, no temp file is left, a failed write keeps the old
 * content and names the file, and a replaced file keeps its mode, owner and
 * group as far as allowed — for the asynchronous and the synchronous form
 * alike.
 */
import assert from "node:assert/strict";
import { basename, dirname, join } from "node:path";
import { tempPathFor, writeFileAtomic, writeFileAtomicSync } from "../../src/util/fs.ts";
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

  Deno.test(`${form}: a name near the 255-byte limit (ASCII, multi-byte) is written, no temp left (R74-3)`, async () => {
    await using home = await tempDir();
    const utf8Bytes = (s: string) => new TextEncoder().encode(s).length;
    const long = "a".repeat(245) + ".chat"; // 250 bytes
    // 1 + 244 + 4 + 5 = 254 bytes: a cut at byte 200 falls inside an "é"
    const wide = "a" + "é".repeat(122) + "🌍" + ".chat";
    assert.deepEqual([utf8Bytes(long), utf8Bytes(wide)], [250, 254]);
    for (const name of [long, wide]) {
      await write(join(home.path, name), "first");
      await write(join(home.path, name), "second"); // replacing too
      assert.equal(Deno.readTextFileSync(join(home.path, name)), "second");
    }
    assert.deepEqual(names(home.path), [long, wide].sort());
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

Deno.test("tempPathFor: the temp name stays within 255 bytes, cut between characters (R74-3)", () => {
  const wide = "a" + "é".repeat(122) + "🌍" + ".chat";
  const tmp = basename(tempPathFor(join("/d", wide)));
  assert.ok(new TextEncoder().encode(tmp).length <= 255, tmp);
  // 159 bytes of the name, then the dot: room for `<pid>@<host>` (R86-2)
  assert.ok(tmp.startsWith(".a" + "é".repeat(79) + "."), tmp);
  assert.equal(dirname(tempPathFor("/d/x.chat")), "/d");
  assert.match(basename(tempPathFor("/d/x.chat")), /^\.x\.chat\.\d+@[^@/]+\.[0-9a-f]{8}\.tmp$/);
});

/** Runs `cmd` as nobody (setpriv), with `groups` as its supplementary groups. */
const asNobody = (groups: number[]) => [
  "setpriv",
  "--reuid=65534",
  "--regid=65534",
  groups.length ? `--groups=${groups.join(",")}` : "--clear-groups",
];

/**
 * Runs a synchronous atomic write of `file` under `prefix` (another user, a
 * user namespace): the module bundled into `dir` and, when the checkout is not
 * that user's to read (a clone under /root), Bun copied there too.
 */
async function writeUnder(
  prefix: string[],
  dir: string,
  file: string,
): Promise<Deno.CommandOutput> {
  const bun = Deno.realPathSync(
    new URL("../../tools/node_modules/.bin/bun", import.meta.url).pathname,
  );
  const script = join(dir, "w.js");
  const src = join(dir, "w.ts");
  const fs = new URL("../../src/util/fs.ts", import.meta.url).pathname;
  Deno.writeTextFileSync(
    src,
    `import { writeFileAtomicSync } from ${JSON.stringify(fs)};\n` +
      `writeFileAtomicSync(process.argv[2], "written\\n");\n`,
  );
  const built = await new Deno.Command(bun, {
    args: ["build", src, "--target=node", "--outfile", script],
    stdout: "null",
  }).output();
  assert.equal(built.code, 0);
  Deno.chmodSync(script, 0o644);
  const under = (args: string[]) =>
    new Deno.Command(prefix[0]!, {
      args: [...prefix.slice(1), ...args],
      env: { HOME: dir },
      stdout: "null",
      stderr: "piped",
    }).output();
  let runtime = bun;
  if ((await under([bun, "--version"])).code !== 0) {
    runtime = join(dir, "bun");
    Deno.copyFileSync(bun, runtime);
    Deno.chmodSync(runtime, 0o755);
  }
  return await under([runtime, script, file]);
}

/** A file of `uid:gid`, mode 0664, in a fresh world-writable temp directory. */
async function sharedFile(uid: number, gid: number) {
  if (Deno.uid() !== 0) throw new Error("this test runs writes as other users: it needs root");
  const home = await tempDir();
  Deno.chmodSync(home.path, 0o777);
  const file = join(home.path, "shared.chat");
  Deno.writeTextFileSync(file, "old");
  Deno.chownSync(file, uid, gid);
  Deno.chmodSync(file, 0o664);
  return { home, file };
}

const owner = (file: string) => {
  const st = Deno.statSync(file);
  return [st.uid, st.gid, st.mode! & 0o777];
};

Deno.test("another user's write: the group kept when they are in it; else the file is theirs, and the write goes on", async () => {
  {
    const { home, file } = await sharedFile(65534, 4242); // nobody's file, a group nobody is in
    await using _ = home;
    const out = await writeUnder(asNobody([4242]), home.path, file);
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.equal(Deno.readTextFileSync(file), "written\n");
    assert.deepEqual(owner(file), [65534, 4242, 0o664]);
  }
  {
    const { home, file } = await sharedFile(65534, 0); // root's group: nobody is not in it
    await using _ = home;
    const out = await writeUnder(asNobody([]), home.path, file);
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.equal(Deno.readTextFileSync(file), "written\n");
    assert.deepEqual(owner(file), [65534, 65534, 0o664]);
  }
});

Deno.test("in a user namespace (a rootless container) a file whose ids are not mapped is still written", async () => {
  const { home, file } = await sharedFile(0, 4242); // group 4242 is not mapped by `unshare -r`
  await using _ = home;
  const out = await writeUnder(["unshare", "-r"], home.path, file);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.equal(Deno.readTextFileSync(file), "written\n");
});

Deno.test("in a setgid directory a replaced file keeps its own group, not the directory's", async () => {
  if (Deno.uid() !== 0) {
    throw new Error("this test gives files away: it needs root (CI runs as root)");
  }
  await using home = await tempDir();
  const dir = join(home.path, "project");
  Deno.mkdirSync(dir);
  Deno.chownSync(dir, 0, 4242);
  Deno.chmodSync(dir, 0o2775);
  for (const [name, gid] of [["mine.chat", 0], ["theirs.chat", 5353]] as const) {
    const file = join(dir, name);
    Deno.writeTextFileSync(file, "old");
    Deno.chownSync(file, 0, gid);
    writeFileAtomicSync(file, "new");
    assert.deepEqual(owner(file).slice(0, 2), [0, gid], name);
  }
  // a new file takes the directory's group, as the system makes it
  writeFileAtomicSync(join(dir, "new.chat"), "x");
  assert.equal(Deno.statSync(join(dir, "new.chat")).gid, 4242);
});
