/**
 * `config set` may store an API key (`config set key sk-… ask`, as README
 * says): a config file it creates is private (`0600`) whatever the umask, and
 * a secret written into an existing file that its group or others may read is
 * warned about once, naming the file and `chmod 600` — the file keeps its
 * mode and group, which may be shared on purpose (R102-10).
 */
import assert from "node:assert/strict";
import { chmodSync, chownSync, mkdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DENO, runMain, SCOUT_SOURCE_ARGS, tempDir } from "../support/cli.ts";

/** Runs the CLI from source in a subprocess under `umask 022`, as a login shell has it. */
async function setUnderUmask022(home: string, args: string[]): Promise<string> {
  const out = await new Deno.Command("sh", {
    args: ["-c", 'umask 022; exec "$0" "$@"', DENO, ...SCOUT_SOURCE_ARGS, "config", ...args],
    env: { SCOUT_HOME: home, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  return stderr;
}

const mode = (path: string) => statSync(path).mode & 0o777;

Deno.test("config set creates the config file 0600 under umask 022, a link's new target too (R102-10)", async () => {
  await using d = await tempDir();
  const home = join(d.path, "cfg");
  const stderr = await setUnderUmask022(home, ["set", "key", "sk-secret", "ask"]);
  assert.equal(mode(join(home, "etc", "config")).toString(8), "600"); // before: 644
  assert.doesNotMatch(stderr, /chmod/, "a private file draws no warning");
  // a dotfiles link to a file not made yet: the file made is private too
  const linked = join(d.path, "linked");
  mkdirSync(join(linked, "etc"), { recursive: true });
  symlinkSync(join(d.path, "dotfiles-config"), join(linked, "etc", "config"));
  await setUnderUmask022(linked, ["set", "endpoint", "nano", "ask"]);
  assert.equal(mode(join(d.path, "dotfiles-config")).toString(8), "600");
});

Deno.test("config set of a secret into a group- or world-readable config keeps its mode and group, and warns once with chmod 600 (R102-10)", async () => {
  await using d = await tempDir();
  const env = { SCOUT_HOME: d.path };
  const file = join(d.path, "etc", "config");
  mkdirSync(join(d.path, "etc"));
  writeFileSync(file, "endpoint nano ask\n");
  chmodSync(file, 0o640);
  const gid = Deno.uid() === 0 ? 65534 : statSync(file).gid; // root: a group of another
  chownSync(file, statSync(file).uid, gid);
  const set = (...args: string[]) => runMain(["config", "set", ...args], { env, cwd: d.path });
  const r = await set("key", "sk-secret", "ask");
  assert.equal(r.code, 0, r.stderr);
  assert.equal(mode(file).toString(8), "640", "the mode is kept");
  assert.equal(statSync(file).gid, gid, "the group is kept");
  const warnings = r.stderr.split("\n").filter((l) => l.includes("chmod 600"));
  assert.equal(warnings.length, 1, r.stderr);
  assert.match(
    warnings[0]!,
    new RegExp(`^scout-ai: warning: "${file}" now holds a secret and its group may read it`),
  );
  assert.ok(warnings[0]!.includes(`chmod 600 ${file}`), warnings[0]);
  assert.doesNotMatch(r.stderr, /sk-secret/, "the key is never shown");
  // a key-like value under any name, world-readable: said too
  chmodSync(file, 0o644);
  const w = await set("token", "gsk_abc", "ask.gpu1");
  assert.match(w.stderr, /every user may read it \(mode 0644\): run "chmod 600 /);
  // no secret written: no warning (env:VAR names a variable, not a key)
  for (const args of [["endpoint", "big", "ask"], ["key", "env:MY_KEY", "openai"]]) {
    const n = await set(...args);
    assert.equal(n.code, 0, n.stderr);
    assert.doesNotMatch(n.stderr, /chmod/, args.join(" "));
  }
  // a private file: no warning
  chmodSync(file, 0o600);
  assert.doesNotMatch((await set("key", "sk-other", "openai")).stderr, /chmod/);
});

Deno.test("the chmod 600 the warning names is shell-quoted: pasted, it makes the config private (R107-5)", async () => {
  await using d = await tempDir();
  const home = join(d.path, "my home's");
  const file = join(home, "etc", "config");
  mkdirSync(join(home, "etc"), { recursive: true });
  writeFileSync(file, "endpoint nano ask\n");
  chmodSync(file, 0o644);
  const r = await runMain(["config", "set", "key", "sk-zzzz", "ask"], {
    env: { SCOUT_HOME: home },
    cwd: d.path,
  });
  assert.equal(r.code, 0, r.stderr);
  const fix = /run "(chmod 600 .*)" unless/.exec(r.stderr)?.[1];
  assert.equal(fix, `chmod 600 '${d.path}/my home'\\''s/etc/config'`, r.stderr);
  const sh = await new Deno.Command("sh", { args: ["-c", fix!], cwd: d.path }).output();
  assert.equal(sh.code, 0, new TextDecoder().decode(sh.stderr));
  assert.equal(mode(file).toString(8), "600");
});
