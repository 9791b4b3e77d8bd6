/**
 * What a received chat may set for the relay (R97-1, R97-4, R97-6): its
 * `option: ssh_command` line is ignored with a warning naming file:line (the
 * ssh command comes from SCOUT_SSH, the config, an endpoint file or `-O`);
 * a relay server or host starting with `-` is refused before ssh runs, and
 * ssh gets `--` before the host; a chat's `relay` / `server` line is warned
 * about, naming its line. Real `llm ask` runs (in-process) with a stand-in
 * `ssh` script that records its arguments.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { existsSync } from "node:fs";
import { runMain, tempDir } from "../support/cli.ts";

const q = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** A recording ssh: writes its argv (NUL-separated) to `<dir>/argv`, then fails (exit 255). */
async function recordingSsh(dir: string): Promise<{ ssh: string; argv(): string[] | null }> {
  const ssh = join(dir, "fake-ssh");
  const log = join(dir, "argv");
  await Deno.writeTextFile(
    ssh,
    `#!/bin/sh\nfor a in "$@"; do printf '%s\\0' "$a"; done > ${q(log)}\nexit 255\n`,
  );
  await Deno.chmod(ssh, 0o755);
  return {
    ssh,
    argv: () => existsSync(log) ? Deno.readTextFileSync(log).split("\0").slice(0, -1) : null,
  };
}

async function askChat(dir: string, chat: string, env: Record<string, string>, flags: string[]) {
  await Deno.writeTextFile(join(dir, "evil.chat"), chat);
  return await runMain(
    ["llm", "ask", "-c", "evil.chat", ...flags, "-O", "request_timeout=3", "-O", "max_retries=0"],
    { env: { SCOUT_HOME: join(dir, "home"), OPENAI_API_KEY: "sk-x", ...env }, cwd: dir },
  );
}

for (const form of ["relay option", "backend relay"]) {
  Deno.test(`a chat's ssh_command line is ignored, naming its line; SCOUT_SSH is used (${form}, R97-1)`, async () => {
    await using dir = await tempDir();
    const fake = await recordingSsh(dir.path);
    const pwn = join(dir.path, "pwn");
    const head = form === "relay option"
      ? "option: relay somehost\n"
      : "backend: relay\noption: server somehost\n";
    // a script shipped next to the chat, named as the ssh command
    const evil = join(dir.path, "evil.sh");
    await Deno.writeTextFile(evil, `#!/bin/sh\nid > ${q(pwn)}\nexit 255\n`);
    await Deno.chmod(evil, 0o755);
    const chat = `${head}option: ssh_command ${evil}\n\nuser: hello\n`;
    const flags = form === "relay option" ? ["-b", "openai"] : [];
    const r = await askChat(dir.path, chat, { SCOUT_SSH: fake.ssh }, [...flags, "hi"]);
    assert.notEqual(r.code, 0);
    assert.equal(existsSync(pwn), false, "the chat's ssh_command ran");
    const line = form === "relay option" ? 2 : 3;
    assert.match(r.stderr, new RegExp(`evil\\.chat:${line}: .*ssh_command.*ignored`));
    assert.equal(r.stderr.split("is ignored").length - 1, 1, "one warning");
    // the environment's ssh ran instead
    assert.equal(fake.argv()?.includes("somehost"), true);
  });
}

Deno.test("-O ssh_command on the user's own command line is used (R97-1)", async () => {
  await using dir = await tempDir();
  const fake = await recordingSsh(dir.path);
  const r = await askChat(
    dir.path,
    "option: relay somehost\n\nuser: hello\n",
    {},
    ["-b", "openai", "-O", `ssh_command=${fake.ssh} -o User=me`, "hi"],
  );
  assert.notEqual(r.code, 0);
  const argv = fake.argv();
  assert.ok(argv, "the -O ssh_command did not run");
  assert.deepEqual(argv.slice(0, 5), ["-o", "BatchMode=yes", "-o", "User=me", "--"]);
  assert.equal(argv[5], "somehost");
  assert.doesNotMatch(r.stderr, /ssh_command.*ignored/);
});

for (
  const [head, flags] of [
    ["option: relay -oProxyCommand=id\n", ["-b", "openai"]],
    ["backend: relay\noption: server -oProxyCommand=id\n", []],
    ["option: relay -oProxyCommand=id:/tmp/q\n", ["-b", "openai"]],
  ] as const
) {
  Deno.test(`a relay host starting with "-" is refused before ssh runs: ${head.trim()} (R97-6)`, async () => {
    await using dir = await tempDir();
    const fake = await recordingSsh(dir.path);
    const r = await askChat(dir.path, `${head}\nuser: hello\n`, { SCOUT_SSH: fake.ssh }, [
      ...flags,
      "hi",
    ]);
    assert.notEqual(r.code, 0);
    assert.equal(fake.argv(), null, "ssh ran");
    assert.match(r.stderr, /-oProxyCommand=id.*starts with "-"/);
  });
}

Deno.test("a chat's relay line is warned about, naming its line (R97-4)", async () => {
  await using dir = await tempDir();
  const drop = join(dir.path, "drop");
  const r = await askChat(
    dir.path,
    `option: relay ${drop}\n\nuser: hello\n`,
    {},
    ["-b", "openai", "-O", "request_timeout=1", "hi"],
  );
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /evil\.chat:1: .*relay.*sends this request/);
  // set on the user's own command line: no warning
  const own = await askChat(dir.path, `user: hello\n`, {}, [
    "-b",
    "openai",
    "-O",
    `relay=${drop}`,
    "-O",
    "request_timeout=1",
    "hi",
  ]);
  assert.notEqual(own.code, 0);
  assert.doesNotMatch(own.stderr, /sends this request/);
});
