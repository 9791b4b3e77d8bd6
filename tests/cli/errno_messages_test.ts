/**
 * System errors in the project's words, naming the file (R81-12): a kb
 * database that is a directory, a Scout home under a file, a queue directory
 * that is a file, an MCP address that is not this machine's; and the CLI's
 * fallback for a system error nothing more specific caught.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { errnoReason, errnoText } from "../../src/util/errno_text.ts";
import { reportError } from "../../src/cli/main.ts";
import { bufferIo } from "../support/buffer_io.ts";
import { ROOT, runMain, tempDir } from "../support/cli.ts";

function errno(message: string, fields: Record<string, unknown>): Error {
  return Object.assign(new Error(message), fields);
}

Deno.test("errnoText: the call, the path and the reason in words", () => {
  assert.equal(
    errnoText(errno("EACCES: permission denied, mkdir '/h/tmp'", {
      code: "EACCES",
      syscall: "mkdir",
      path: "/h/tmp",
    })),
    'Cannot create directory "/h/tmp": permission denied',
  );
  assert.equal(
    errnoText(errno("EXDEV: cross-device link not permitted, rename '/a' -> '/b'", {
      code: "EXDEV",
      syscall: "rename",
      path: "/a",
      dest: "/b",
    })),
    'Cannot rename "/a" to "/b": it is on another file system',
  );
  assert.equal(
    errnoText(errno("EADDRNOTAVAIL: address not available", {
      code: "EADDRNOTAVAIL",
      syscall: "listen",
      address: "::2",
      port: 80,
    })),
    "Cannot listen on [::2]:80: address not available",
  );
  assert.equal(
    errnoText(errno("EWEIRD: something odd, open '/x'", {
      code: "EWEIRD",
      syscall: "open",
      path: "/x",
    })),
    'Cannot open "/x": something odd',
  );
  assert.equal(errnoText(new Error("plain")), null);
  assert.equal(errnoText(errno("x", { code: "ERR_INVALID_ARG_TYPE" })), null);
  assert.equal(errnoText(errno("x", { code: "ENOENT" })), null); // no call to name
  assert.equal(errnoReason(errno("x", { code: "EACCES" })), "permission denied");
  assert.equal(errnoReason(new Error("plain")), "plain");
});

Deno.test("the CLI reports a system error nothing caught in errnoText's words", () => {
  const io = bufferIo({});
  const e = errno("ENOTDIR: not a directory, mkdir '/f/tmp'", {
    code: "ENOTDIR",
    syscall: "mkdir",
    path: "/f/tmp",
  });
  assert.equal(reportError(e, { io, exitCode: 0, debug: false, logLevel: 5 }), 1);
  assert.equal(
    io.stderrText(),
    'scout-ai: Cannot create directory "/f/tmp": a part of the path is not a directory\n',
  );
});

Deno.test("commands name the path a system call failed on (R81-12)", async () => {
  await using d = await tempDir();
  const env = { NO_COLOR: "1", HOME: join(d.path, "home"), SCOUT_HOME: join(d.path, "scout") };
  const o = { cwd: d.path, env };
  mkdirSync(join(d.path, "dir"));
  writeFileSync(join(d.path, "afile"), "x\n");
  const kb = await runMain(["kb", "register", "kb1", "db", "dir"], o);
  assert.equal(kb.code, 1);
  assert.equal(kb.stderr, `scout-ai: Is a directory, not a file: "${join(d.path, "dir")}"\n`);
  const home = join(d.path, "afile", "scout");
  const task = await runMain(
    ["workflow", "task", join(ROOT, "fixtures", "workflows", "Baking"), "cake"],
    { cwd: d.path, env: { ...env, SCOUT_HOME: home } },
  );
  assert.equal(task.code, 1);
  assert.match(
    task.stderr,
    new RegExp(
      `^scout-ai: Cannot lock the job "${home}/var/jobs/[^"]*": SCOUT_HOME's ` +
        `"${home}/tmp/persist_locks" refuses it \\(a part of the path is not a directory\\), ` +
        `and so does "${home}/var/jobs/.persist_locks" \\(a part of the path is not a ` +
        "directory\\); set SCOUT_HOME to a writable directory\n$",
    ),
  );
  const queue = await runMain(["llm", "process", "afile", "--once"], o);
  assert.equal(queue.code, 1);
  assert.equal(
    queue.stderr,
    'scout-ai: Cannot use "afile" as the queue directory: it is not a directory\n',
  );
});

Deno.test("workflow mcp --http on an address not this machine's names the address (R81-12)", async () => {
  await using d = await tempDir();
  const env = { NO_COLOR: "1", HOME: join(d.path, "home"), SCOUT_HOME: join(d.path, "scout") };
  // 192.0.2.1 (TEST-NET-1) is no address of this machine: binding it fails, nothing is sent
  const r = await runMain(
    [
      "workflow",
      "mcp",
      join(ROOT, "fixtures", "workflows", "Baking"),
      "--http",
      "0",
      "--host",
      "192.0.2.1",
    ],
    { cwd: d.path, env },
  );
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^scout-ai: Cannot listen on 192\.0\.2\.1:0: (address not available|invalid argument)\n$/,
  );
});
