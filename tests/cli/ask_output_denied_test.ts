/**
 * `-o` naming a chat this user may write in a directory they may not (a
 * group's chat, `664`, in another user's `2755` directory): refused before
 * asking, since the chat is replaced atomically (temp + rename) — but as a
 * failure (exit 1) saying so, not as a usage error (exit 2 with the help
 * hint: README keeps 2 for usage) (R92-5). Run in a real `scout-ai`
 * subprocess as `nobody` when root, else as this user.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DENO, SCOUT_SOURCE_ARGS, tempDir } from "../support/cli.ts";

Deno.test("-o in a directory that cannot be written: exit 1, why, no usage hint (R92-5)", async () => {
  await using d = await tempDir();
  chmodSync(d.path, 0o755);
  const denoDir = join(d.path, ".deno");
  mkdirSync(denoDir);
  chmodSync(denoDir, 0o777);
  const home = join(d.path, "home");
  mkdirSync(home);
  chmodSync(home, 0o777);
  const ac = join(d.path, "ac");
  mkdirSync(ac);
  writeFileSync(join(ac, "a.chat"), "user: old\n");
  chmodSync(join(ac, "a.chat"), 0o666);
  chmodSync(ac, 0o555); // not nobody's when root; read-only when not
  const args = [...SCOUT_SOURCE_ARGS, "llm", "ask", "-b", "openai", "-O", "url=http://127.0.0.1:9"];
  args.push("-m", "m", "--no-cache", "-o", "ac/a.chat", "x");
  const [cmd, argv] = Deno.uid() === 0
    ? ["setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", DENO, ...args]]
    : [DENO, args];
  const out = await new Deno.Command(cmd, {
    args: argv,
    cwd: d.path,
    clearEnv: true,
    env: {
      HOME: d.path,
      DENO_DIR: denoDir,
      NO_COLOR: "1",
      PATH: Deno.env.get("PATH") ?? "",
      SCOUT_HOME: home,
      OPENAI_API_KEY: "sk-x",
    },
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 1, stderr); // before: 2
  assert.match(
    stderr,
    /^scout-ai: Cannot write -o "ac\/a\.chat": "[^"]*\/ac" is not a writable directory \(the file is replaced atomically: [^)]*\)\n$/,
  );
  assert.doesNotMatch(stderr, /--help/);
  assert.equal(readFileSync(join(ac, "a.chat"), "utf8"), "user: old\n");
});
