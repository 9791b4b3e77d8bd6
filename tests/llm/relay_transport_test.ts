/**
 * The relay's ssh transport with a stand-in `ssh` (a script that records its
 * arguments, then runs the remote script with `/bin/sh` in a temp "remote
 * home"): how `ssh_command` / `SCOUT_SSH` is split (R79-12) and how a remote
 * `~` reaches the remote shell (R79-11). The real sshd runs are in
 * `tests/e2e/relay_ssh_test.ts`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { isScoutError } from "../../src/errors.ts";
import { relayTransport, remotePathWord } from "../../src/llm/relay_transport.ts";
import { tempDir } from "../support/cli.ts";

const q = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** A fake ssh in `<dir>/bin dir/ssh`: records argv (NUL-separated), runs the last one in `home`. */
async function fakeSsh(dir: string): Promise<{ ssh: string; home: string; argv(): string[] }> {
  const bin = join(dir, "bin dir");
  const home = join(dir, "remote home");
  const log = join(dir, "argv");
  await Deno.mkdir(bin);
  await Deno.mkdir(home);
  const ssh = join(bin, "ssh");
  await Deno.writeTextFile(
    ssh,
    `#!/bin/sh
for a in "$@"; do printf '%s\\0' "$a"; done > ${q(log)}
for a in "$@"; do last="$a"; done
HOME=${q(home)}; export HOME; cd "$HOME" && exec /bin/sh -c "$last"
`,
  );
  await Deno.chmod(ssh, 0o755);
  const argv = () => Deno.readTextFileSync(log).split("\0").slice(0, -1);
  return { ssh, home, argv };
}

Deno.test("relay ssh_command: a quoted key path and ProxyCommand reach ssh as single arguments (R79-12)", async () => {
  await using dir = await tempDir();
  const fake = await fakeSsh(dir.path);
  const ssh =
    `"${fake.ssh}" -i '/keys/my key' -o "ProxyCommand=ssh -i '/k dir/id' -W %h:%p bastion" ` +
    `-o User=me\\ too`;
  const t = relayTransport("gpu-node:/tmp/unused", ".scout/var/ask", ssh);
  assert.equal(await t.get("missing.json"), null);
  const argv = fake.argv();
  assert.deepEqual(argv.slice(0, -1), [
    "-o",
    "BatchMode=yes",
    "-i",
    "/keys/my key",
    "-o",
    "ProxyCommand=ssh -i '/k dir/id' -W %h:%p bastion",
    "-o",
    "User=me too",
    "--",
    "gpu-node",
  ]);
});

Deno.test("relay ssh_command: an unbalanced quote or no command is a config error naming it", () => {
  for (const ssh of [`ssh -o "ProxyCommand=x`, "  "]) {
    assert.throws(
      () => relayTransport("gpu-node", ".scout/var/ask", ssh),
      (e) => isScoutError(e, "config") && e.message.includes(`SCOUT_SSH "${ssh}"`),
    );
  }
});

Deno.test("relay server host:~/dir: the queue is under the remote home, no directory named ~ (R79-11)", async () => {
  await using dir = await tempDir();
  const fake = await fakeSsh(dir.path);
  const t = relayTransport("me@gpu:~/q 2", ".scout/var/ask", q(fake.ssh));
  assert.equal(t.label, "me@gpu:~/q 2");
  await t.put("a.json", `{"it's":1}`);
  assert.equal(await Deno.readTextFile(join(fake.home, "q 2", "a.json")), `{"it's":1}`);
  assert.equal(await t.get("a.json"), `{"it's":1}`);
  assert.equal(await t.get("reply/a.json"), null);
  // `host:~` is the home itself
  await relayTransport("me@gpu:~", ".scout/var/ask", q(fake.ssh)).put("b.json", "{}");
  assert.equal(await Deno.readTextFile(join(fake.home, "b.json")), "{}");
  assert.deepEqual([...Deno.readDirSync(fake.home)].map((e) => e.name).sort(), ["b.json", "q 2"]);
  // the default queue stays relative to the home, where ssh starts
  await relayTransport("me@gpu", ".scout/var/ask", q(fake.ssh)).put("c.json", "{}");
  assert.equal(await Deno.readTextFile(join(fake.home, ".scout/var/ask/c.json")), "{}");
});

Deno.test("remotePathWord: ~ and ~user stay bare for the remote shell, everything else is quoted", () => {
  assert.equal(remotePathWord("~"), "~");
  assert.equal(remotePathWord("~/q2/a.json"), "~/'q2/a.json'");
  assert.equal(remotePathWord("~/"), "~/''");
  assert.equal(remotePathWord("~alice/q 2"), "~alice/'q 2'");
  assert.equal(remotePathWord("~/it's $x"), `~/'it'\\''s $x'`);
  assert.equal(remotePathWord("/shared/q"), "'/shared/q'");
  assert.equal(remotePathWord(".scout/var/ask/x"), "'.scout/var/ask/x'");
  // not a home: quoted whole
  for (const p of ["a~/b", "~$(id)/x", "~a b/x", "~-/x", "~;rm/x"]) {
    assert.equal(remotePathWord(p), q(p));
  }
});
