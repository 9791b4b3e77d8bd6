/**
 * `shellWords`: a command line split into words as a POSIX shell splits it
 * (quotes, backslashes, no expansion) — for tool directives and for the relay's
 * `ssh_command` / `SCOUT_SSH`. `/bin/sh` is the oracle for the ssh-like lines.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { shellQuote, shellWords } from "../../src/util/shell_words.ts";
import { shellWords as directiveWords } from "../../src/chat/tool_directives.ts";
import { isScoutError } from "../../src/errors.ts";

/** The words /bin/sh makes of `line` (lines without expansions only). */
async function shSplit(line: string): Promise<string[]> {
  const out = await new Deno.Command("/bin/sh", {
    args: ["-c", `printf '%s\\0' ${line}`],
    stdout: "piped",
  }).output();
  assert.ok(out.success, line);
  return new TextDecoder().decode(out.stdout).split("\0").slice(0, -1);
}

Deno.test("shellWords splits ssh command lines as /bin/sh does: quoted ProxyCommand, spaces in paths", async () => {
  const lines = [
    `ssh -p 2222 -i "/keys/my key" -o StrictHostKeyChecking=no`,
    `ssh -o "ProxyCommand=ssh -i '/k dir/id' -W %h:%p bastion" -p 22`,
    `ssh -o 'ProxyCommand=ssh -W %h:%p "bastion host"' -i /k/id`,
    `ssh -i /keys/my\\ key  -o\tLogLevel=ERROR`,
    `ssh -o ProxyJump=a@b,c@d -o "User=it's"`,
    `ssh -o 'A="b c"'"d e"f\\"g`,
    `ssh ''`,
  ];
  for (const line of lines) assert.deepEqual(shellWords(line), await shSplit(line), line);
  assert.deepEqual(shellWords(`ssh -o "ProxyCommand=ssh -W %h:%p bastion" host`), [
    "ssh",
    "-o",
    "ProxyCommand=ssh -W %h:%p bastion",
    "host",
  ]);
});

Deno.test("shellWords: any words, each single-quoted and joined, split back to themselves", () => {
  const q = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  fc.assert(
    fc.property(fc.array(fc.string({ unit: "binary" })), (words) => {
      assert.deepEqual(shellWords(words.map(q).join(" ")), words);
    }),
  );
});

Deno.test("shellWords: nothing is expanded; an unbalanced quote is invalid_input; chat/ uses the same splitter", () => {
  assert.deepEqual(shellWords("ssh -i ~/k $HOME/x *.pem"), [
    "ssh",
    "-i",
    "~/k",
    "$HOME/x",
    "*.pem",
  ]);
  assert.deepEqual(shellWords("  \t "), []);
  assert.throws(
    () => shellWords(`ssh -o "ProxyCommand=x`),
    (e) => isScoutError(e, "invalid_input"),
  );
  assert.equal(directiveWords, shellWords);
});

Deno.test("shellQuote: plain words unchanged, others single-quoted; shellWords and /bin/sh read them back", async () => {
  assert.equal(shellQuote("/tmp/etc/config"), "/tmp/etc/config");
  assert.equal(shellQuote(""), "''");
  const words = ["/tmp/x/my home/etc/config", "it's", "a&b;$x `y` *", "é\n\\"];
  for (const w of words) assert.deepEqual(shellWords(shellQuote(w)), [w], w);
  const out = await new Deno.Command("sh", {
    args: ["-c", `printf '%s\\0' ${words.map(shellQuote).join(" ")}`],
    stdout: "piped",
  }).output();
  assert.deepEqual(new TextDecoder().decode(out.stdout).split("\0").slice(0, -1), words);
});
