/**
 * `config set`/`unset` and `kb register` write through a symbolic link (a
 * dotfiles link keeps working, as Ruby's Open.write follows it) and keep the
 * bytes of the config lines they do not touch (R88-4, R88-5); a home they
 * cannot write is named with its cause (R119-1).
 */
import assert from "node:assert/strict";
import { lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { Buffer } from "node:buffer";
import { join } from "node:path";
import { readRegistry, writeRegistry } from "../../src/kb/registry.ts";
import { ROOT, runMain, tempDir } from "../support/cli.ts";
import { mountTmpfs, unmount } from "../support/full_disk.ts";

Deno.test("config set/unset write through a symlinked config; the link stays (R88-4)", async () => {
  await using d = await tempDir();
  const env = { SCOUT_HOME: join(d.path, "home") };
  mkdirSync(join(d.path, "home", "etc"), { recursive: true });
  const real = join(d.path, "real");
  const link = join(d.path, "home", "etc", "config");
  writeFileSync(real, "a b ask\n");
  symlinkSync(real, link);
  const run = (args: string[]) => runMain(["config", ...args], { env, cwd: d.path });
  assert.equal((await run(["set", "q", "1", "ask"])).code, 0);
  assert.ok(lstatSync(link).isSymbolicLink(), "the link is kept");
  assert.equal(readFileSync(real, "utf8"), "a b ask\nq 1 ask\n");
  assert.equal((await run(["unset", "a", "ask"])).code, 0);
  assert.ok(lstatSync(link).isSymbolicLink());
  assert.equal(readFileSync(real, "utf8"), "q 1 ask\n");
});

Deno.test("config set through a link to nothing creates its target (R88-4)", async () => {
  await using d = await tempDir();
  const env = { SCOUT_HOME: join(d.path, "home") };
  mkdirSync(join(d.path, "home", "etc"), { recursive: true });
  const real = join(d.path, "dotfiles-config");
  const link = join(d.path, "home", "etc", "config");
  symlinkSync("../../dotfiles-config", link); // relative, dangling
  const r = await runMain(["config", "set", "q", "1", "ask"], { env, cwd: d.path });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(lstatSync(link).isSymbolicLink());
  assert.equal(readFileSync(real, "utf8"), "q 1 ask\n");
});

Deno.test("config set/unset keep other lines byte for byte, invalid UTF-8 included (R88-5)", async () => {
  await using d = await tempDir();
  const env = { SCOUT_HOME: d.path };
  const file = join(d.path, "etc", "config");
  mkdirSync(join(d.path, "etc"));
  const bad = Buffer.from([0xff, 0xfe, 0x20, ...Buffer.from("bad ask\n")]);
  writeFileSync(file, Buffer.concat([Buffer.from("x y ask\n"), bad]));
  const run = (args: string[]) => runMain(["config", ...args], { env, cwd: d.path });
  assert.equal((await run(["set", "z", "1", "ask"])).code, 0);
  assert.deepEqual(
    readFileSync(file),
    Buffer.concat([Buffer.from("x y ask\n"), bad, Buffer.from("z 1 ask\n")]),
  );
  assert.equal((await run(["unset", "x", "ask"])).code, 0);
  assert.deepEqual(readFileSync(file), Buffer.concat([bad, Buffer.from("z 1 ask\n")]));
});

Deno.test("kb register writes through a symlinked registry; the link stays (R88-4)", async () => {
  await using d = await tempDir();
  const kb = join(d.path, "kb");
  mkdirSync(join(kb, "config"), { recursive: true });
  const real = join(d.path, "registry.yaml");
  writeFileSync(real, "");
  const link = join(kb, "config", "registry");
  symlinkSync(real, link);
  const family = join(ROOT, "fixtures", "kb", "family");
  const r = await runMain(["kb", "register", kb, "sib2", join(family, "siblings")], {
    cwd: d.path,
    env: { SCOUT_HOME: join(d.path, "home") },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(lstatSync(link).isSymbolicLink(), "the link is kept");
  assert.match(readFileSync(real, "utf8"), /sib2/);
  // and writeRegistry itself, through a link to nothing
  const kb2 = join(d.path, "kb2");
  mkdirSync(join(kb2, "config"), { recursive: true });
  symlinkSync(join(d.path, "reg2"), join(kb2, "config", "registry"));
  writeRegistry(kb2, readRegistry(kb));
  assert.ok(lstatSync(join(kb2, "config", "registry")).isSymbolicLink());
  assert.match(readFileSync(join(d.path, "reg2"), "utf8"), /sib2/);
});

Deno.test("config set in a read-only Scout home says why etc/ cannot be made (R119-1)", async () => {
  const home = await mountTmpfs("ro,size=64k"); // a tmpfs mounted read-only, no etc/ in it
  try {
    const r = await runMain(["config", "set", "model", "foo", "ask"], {
      env: { SCOUT_HOME: home },
      cwd: home,
    });
    assert.equal(r.code, 1);
    // the cause, not the lock's "no such file or directory" that followed it
    assert.equal(
      r.stderr,
      `scout-ai: Cannot create directory "${join(home, "etc")}": read-only file system — set ` +
        "SCOUT_HOME to a writable directory\n",
    );
  } finally {
    await unmount(home);
  }
});
