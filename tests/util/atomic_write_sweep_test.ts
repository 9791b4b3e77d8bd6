/**
 * Temp files that writers killed mid-write leave (R86-2): the next write of
 * the same file removes those of this host's dead processes — never a live
 * writer's, another host's (a shared directory's hosts reuse each other's
 * pids), another file's, or one of the earlier naming (no host) younger
 * than an hour. A file whose path is near PATH_MAX gets a temp name cut to
 * fit, swept alike (R119-2).
 */
import assert from "node:assert/strict";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { tempPathFor, writeFileAtomic, writeFileAtomicSync } from "../../src/util/fs.ts";
import { DENO, ROOT, tempDir } from "../support/cli.ts";
import { dirOfLength } from "../support/long_path.ts";

const names = (dir: string) => [...Deno.readDirSync(dir)].map((e) => e.name).sort();

/** A child that begins a write of `file` as writeFileAtomic does (its temp file, part written), then hangs. */
function writer(file: string) {
  const code = `
    import { openSync, writeSync } from "node:fs";
    import { tempPathFor } from ${JSON.stringify(join(ROOT, "src/util/fs.ts"))};
    const tmp = tempPathFor(${JSON.stringify(file)});
    writeSync(openSync(tmp, "w"), "x".repeat(1 << 20));
    console.log(tmp);
    setInterval(() => {}, 1000);`;
  const child = new Deno.Command(DENO, { args: ["eval", "-q", code], stdout: "piped" }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  return {
    child,
    /** The temp file's path, once it is being written. */
    tmp: async () => (await reader.read()).value!.trim(),
    async kill() {
      child.kill("SIGKILL");
      await child.status;
      await reader.cancel().catch(() => {});
    },
  };
}

for (
  const [form, write] of [
    ["writeFileAtomic", writeFileAtomic],
    // deno-lint-ignore require-await
    ["writeFileAtomicSync", async (p: string, d: string) => writeFileAtomicSync(p, d)],
  ] as const
) {
  Deno.test(`${form}: a writer SIGKILLed mid-write leaves its temp file; the next write of the file removes it, and only what is a dead writer's of this host (R86-2)`, async () => {
    await using d = await tempDir();
    const file = join(d.path, "big.chat");
    Deno.writeTextFileSync(file, "old");
    const killed = writer(file);
    const live = writer(file);
    const [killedTmp, liveTmp] = [await killed.tmp(), await live.tmp()];
    await killed.kill(); // kill -9 mid-write
    const dead = killed.child.pid;
    const host = hostname();
    assert.match(killedTmp, new RegExp(`/\\.big\\.chat\\.${dead}[@.][^/]+\\.tmp$`));
    const keep = [
      `.big.chat.${dead}@elsewhere.0123abcd.tmp`, // another host's pid
      `.big.chat.${dead}.0123abcd.tmp`, // the earlier naming (no host), recent
      `.other.chat.${dead}@${host}.0123abcd.tmp`, // another file's
      `.big.chat.5.${dead}@${host}.0123abcd.tmp`, // the file big.chat.5's
    ];
    const aged = `.big.chat.${dead}.89abcdef.tmp`; // the earlier naming, two hours old
    for (const n of [...keep, aged]) Deno.writeTextFileSync(join(d.path, n), "x");
    const old = new Date(Date.now() - 2 * 3600_000);
    Deno.utimeSync(join(d.path, aged), old, old);
    assert.ok(
      names(d.path).includes(killedTmp.slice(d.path.length + 1)),
      "left by the killed writer",
    );

    await write(file, "new");
    assert.equal(Deno.readTextFileSync(file), "new");
    // before: the killed writer's temp file (and the aged one) stayed, whatever wrote the file later
    assert.deepEqual(
      names(d.path),
      ["big.chat", liveTmp.slice(d.path.length + 1), ...keep].sort(),
    );
    await live.kill();
  });
}

Deno.test("tempPathFor: the name holds the writer's pid and host (R86-2)", () => {
  assert.match(
    tempPathFor("/d/x.chat"),
    new RegExp(`^/d/\\.x\\.chat\\.${Deno.pid}@[^@/]+\\.[0-9a-f]{8}\\.tmp$`),
  );
});

Deno.test("a file whose path is near PATH_MAX is written, its temp name cut to fit; a dead writer's temp of it is swept (R119-2)", async () => {
  await using d = await tempDir();
  const name = `${"n".repeat(50)}.chat`; // 55 bytes
  const file = join(dirOfLength(d.path, 4095 - 1 - name.length), name); // 4095 bytes: PATH_MAX - 1
  assert.equal(file.length, 4095);
  // a writer (another pid) killed mid-write: its temp file beside the file, the name cut to fit
  const killed = writer(file);
  const tmp = await killed.tmp();
  await killed.kill();
  assert.equal(dirname(tmp), dirname(file));
  assert.match(basename(tmp), new RegExp(`^\\.n{1,49}\\.${killed.child.pid}@[^/]+\\.tmp$`));
  await writeFileAtomic(file, "saved");
  assert.equal(Deno.readTextFileSync(file), "saved");
  assert.deepEqual(names(dirname(file)), [name]); // the dead writer's temp file swept, none left
});

Deno.test("a directory whose path leaves no room for a temp file: the write names that cause (R119-2)", async () => {
  await using d = await tempDir();
  const file = join(dirOfLength(d.path, 4085), "short.tx"); // 4094 bytes: the file itself fits
  await assert.rejects(
    () => writeFileAtomic(file, "x"),
    (e: Error) => {
      assert.equal(
        e.message,
        `Cannot write "${file}": its directory's path leaves no room within the system's path ` +
          "limit for the temp file an atomic write makes beside it (4095 bytes)",
      );
      return true;
    },
  );
  assert.deepEqual(names(dirname(file)), []);
});

/**
 * A process that exits (`process.exit`: a late signal's exit) while an
 * asynchronous write waits removes its temp file (R141-1: a 308 MB one was
 * left beside a chat). The exit comes in the microtask after the write began:
 * its temp file made, its bytes being written.
 */
for (
  const [how, begin] of [
    ["writeFileAtomic, large", `writeFileAtomic(file, "x".repeat(8 << 20))`],
    ["writeFileAtomic, small", `writeFileAtomic(file, "x")`],
    [
      "writeChunksAtomic",
      `writeChunksAtomic(file, (async function* () { yield new Uint8Array(9); await new Promise(() => {}); })())`,
    ],
  ] as const
) {
  Deno.test(`an exit while ${how} waits leaves no temp file (R141-1)`, async () => {
    await using d = await tempDir();
    const file = join(d.path, "big.chat");
    const code = `
      import { writeChunksAtomic, writeFileAtomic } from ${
      JSON.stringify(join(ROOT, "src/util/fs.ts"))
    };
      const file = ${JSON.stringify(file)};
      ${begin};
      queueMicrotask(() => process.exit(7));`;
    const out = await new Deno.Command(DENO, { args: ["eval", "-q", code] }).output();
    assert.equal(out.code, 7, new TextDecoder().decode(out.stderr));
    assert.deepEqual(names(d.path), []);
  });
}
