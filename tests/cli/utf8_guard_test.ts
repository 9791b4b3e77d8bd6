/**
 * The check of `cli.ts` for input that is not UTF-8 (`src/cli/utf8_guard.ts`,
 * `utf8_verdict.ts`, `raw_process.ts`) on given bytes: a U+FFFD the kernel's
 * bytes show to be typed passes, a replaced byte is named as `\xNN`, no bytes
 * at all count as replaced; and the variables it checks are every one `src/`
 * reads by name. The real processes: `tests/e2e/non_utf8_input_test.ts`.
 */
import assert from "node:assert/strict";
import { READ_ENV, suspectInput } from "../../src/cli/utf8_guard.ts";
import { nonUtf8Message, showEscaped } from "../../src/cli/utf8_verdict.ts";
import { nulEntries, rawArgs, rawEnv } from "../../src/cli/raw_process.ts";
import { namesReadInSrc } from "../support/env_names.ts";

const enc = new TextEncoder();

/** NUL-terminated entries, as `/proc/self/cmdline` and `/proc/self/environ` hold them. */
function nul(...parts: (string | number[])[]): Uint8Array {
  const bytes: number[] = [];
  for (const p of parts) bytes.push(...(typeof p === "string" ? enc.encode(p) : p), 0);
  return Uint8Array.from(bytes);
}

const X_E9 = [0x78, 0xe9]; // "x" then Latin-1 é: not UTF-8
const TYPED = [0x79, 0xef, 0xbf, 0xbd]; // "y" then U+FFFD in UTF-8
const TAIL = " is not valid UTF-8: scout-ai cannot name such a file or read such text; " +
  "rename the file";

Deno.test("the command line's last entries are the arguments, whatever runs them", () => {
  const cmdline = nul("deno", "run", "-A", "/r/cli.ts", "chat", X_E9);
  assert.deepEqual(nulEntries(cmdline).length, 6);
  const args = rawArgs(cmdline, 2)!;
  assert.deepEqual([...args[0]!], [...enc.encode("chat")]);
  assert.deepEqual([...args[1]!], X_E9);
  assert.equal(rawArgs(cmdline, 7), undefined);
  assert.deepEqual([...rawEnv(nul("A=1", ["B".charCodeAt(0), 0x3d, 0xe9], "BB=2"), "B")!], [0xe9]);
  assert.equal(rawEnv(nul("BB=2"), "B"), undefined);
});

Deno.test("an argument: a replaced byte is named, a typed U+FFFD passes, no bytes count as replaced", () => {
  const args = ["chat", "parse", "x\uFFFD", "y\uFFFD"];
  const cmdline = nul("scout-ai", "chat", "parse", X_E9, TYPED);
  assert.equal(
    nonUtf8Message(args, { args: [2, 3], env: [] }, { cmdline }),
    `argument 3 ("x\\xe9")${TAIL}, or give the text in UTF-8`,
  );
  assert.equal(nonUtf8Message(args, { args: [3], env: [] }, { cmdline }), null);
  // no /proc: the runtime's text is all there is, shown as it is
  assert.equal(
    nonUtf8Message(args, { args: [3], env: [] }, {}),
    `argument 4 ("y\uFFFD")${TAIL}, or give the text in UTF-8`,
  );
  // bytes that are not this argument's (decoded, they differ) are not trusted
  const other = nul("scout-ai", "chat", "parse", X_E9, "y");
  assert.match(nonUtf8Message(args, { args: [3], env: [] }, { cmdline: other })!, /^argument 4/);
});

Deno.test("a credential is never shown: -O key=…, a key-like value, a secret variable", () => {
  const key = [...enc.encode("api_key=sk-"), 0xe9];
  const msg = nonUtf8Message(["-O", "api_key=sk-\uFFFD"], { args: [1], env: [] }, {
    cmdline: nul("scout-ai", "-O", key),
  });
  assert.equal(msg, `argument 2${TAIL}, or give the text in UTF-8`);
  const environ = nul(["OPENAI_KEY=".split("").map((c) => c.charCodeAt(0)), 0xe9].flat());
  assert.equal(
    nonUtf8Message([], { args: [], env: [{ name: "OPENAI_KEY", value: "\uFFFD" }] }, { environ }),
    `environment variable OPENAI_KEY${TAIL}, or give OPENAI_KEY a UTF-8 value`,
  );
});

Deno.test("a credential is never shown: the value of config set <secret>, a key among words (R107-1)", () => {
  const args = ["config", "set", "api_key", "hunter2\uFFFD", "ask"];
  const cmdline = nul(
    "scout-ai",
    "config",
    "set",
    "api_key",
    [...enc.encode("hunter2"), 0xe9],
    "ask",
  );
  const msg = nonUtf8Message(args, { args: [3], env: [] }, { cmdline });
  assert.equal(msg, `argument 4${TAIL}, or give the text in UTF-8`);
  // a name that is no credential's: its value is shown
  const plain = ["config", "set", "model", "gpt\uFFFD"];
  const mcmd = nul("scout-ai", "config", "set", "model", [...enc.encode("gpt"), 0xe9]);
  assert.equal(
    nonUtf8Message(plain, { args: [3], env: [] }, { cmdline: mcmd }),
    `argument 4 ("gpt\\xe9")${TAIL}, or give the text in UTF-8`,
  );
  const key = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789";
  const text = [...enc.encode(`use ${key} now`), 0xe9];
  const words = nonUtf8Message(["ask", `use ${key} now\uFFFD`], { args: [1], env: [] }, {
    cmdline: nul("scout-ai", "ask", text),
  })!;
  assert.ok(!words.includes("abcdefghijklmnopqrstuvwxyz"), words);
  assert.equal(words, `argument 2 ("use *** now\\xe9")${TAIL}, or give the text in UTF-8`);
});

Deno.test("a variable the runtime refused (Deno) is named with its bytes, a typed one passes", () => {
  const home = [...enc.encode("SCOUT_HOME=/h/H"), 0xe9];
  const environ = nul("A=1", home, [...enc.encode("SCOUT_X=/h/"), ...TYPED.slice(1)]);
  assert.equal(
    nonUtf8Message([], { args: [], env: [{ name: "SCOUT_HOME" }] }, { environ }),
    `environment variable SCOUT_HOME ("/h/H\\xe9")${TAIL}, or give SCOUT_HOME a UTF-8 value`,
  );
  assert.equal(
    nonUtf8Message([], { args: [], env: [{ name: "SCOUT_X", value: "/h/\uFFFD" }] }, { environ }),
    null,
  );
});

Deno.test("the working directory: from the link's bytes (Bun) or Deno's error", () => {
  const end = "is not valid UTF-8: scout-ai cannot name the files in it; rename it, or run " +
    "scout-ai from another directory";
  const cwd = Uint8Array.from([...enc.encode("/d/bad"), 0xe9]);
  assert.equal(
    nonUtf8Message([], { args: [], env: [], cwd: { path: "/d/bad\uFFFD" } }, { cwd }),
    `the working directory ("/d/bad\\xe9") ${end}`,
  );
  const deno = 'File name or path "/d/bad\\xE9" is not valid UTF-8';
  assert.equal(
    nonUtf8Message([], { args: [], env: [], cwd: { error: deno } }, {}),
    `the working directory ("/d/bad\\xe9") ${end}`,
  );
  const typed = Uint8Array.from([...enc.encode("/d/"), 0xef, 0xbf, 0xbd]);
  assert.equal(
    nonUtf8Message([], { args: [], env: [], cwd: { path: "/d/\uFFFD" } }, {
      cwd: typed,
    }),
    null,
  );
});

Deno.test("showEscaped: bad bytes and control characters as \\xNN, quotes escaped, text kept", () => {
  assert.equal(showEscaped('a\udce9\u0001"\\\u{1F080}é'), 'a\\xe9\\x01\\"\\\\\u{1F080}é');
});

Deno.test("suspectInput: only values with U+FFFD, a refused variable, a refused directory", () => {
  const cwd = () => "/ok";
  assert.equal(suspectInput(["a", "b"], { HOME: "/h", SCOUT_X: "1" }, cwd), null);
  assert.deepEqual(suspectInput(["a", "b\uFFFD"], { SCOUT_X: "\uFFFD", OTHER: "\uFFFD" }, cwd), {
    args: [1],
    env: [{ name: "SCOUT_X", value: "\uFFFD" }],
  });
  const refusing = new Proxy({} as Record<string, string>, {
    get: (_t, name) => {
      if (name === "SCOUT_HOME") throw new Error("environment variable was not valid unicode");
      return undefined;
    },
  });
  assert.deepEqual(suspectInput([], refusing, cwd)?.env, [{ name: "SCOUT_HOME" }]);
  const denied = new Proxy({} as Record<string, string>, {
    get: () => {
      throw Object.assign(new Error('Requires env access to "HOME"'), { name: "NotCapable" });
    },
  });
  assert.equal(suspectInput([], denied, cwd), null); // not about UTF-8: the command meets it
  const invalid = () => {
    throw Object.assign(new Error('File name or path "/d\\xE9" is not valid UTF-8'), {
      name: "InvalidData",
    });
  };
  assert.deepEqual(suspectInput([], {}, invalid)?.cwd, {
    error: 'File name or path "/d\\xE9" is not valid UTF-8',
  });
  const gone = () => {
    throw Object.assign(new Error("No such file or directory"), { code: "ENOENT" });
  };
  assert.equal(suspectInput([], {}, gone), null); // the command meets it, as before
});

Deno.test("every variable src/ reads by name is checked (or left out on purpose)", () => {
  const leftOut = new Set(["NO_COLOR", "TERM", "NODE_ENV", "BUN_ENV", "USERPROFILE"]);
  const read = namesReadInSrc();
  assert.ok(read.has("SCOUT_HOME") && read.has("OPENAI_URL") && read.has("EPOCH_SIZE"));
  const missing = [...read].filter((n) => !READ_ENV.includes(n) && !leftOut.has(n));
  assert.deepEqual(missing, []);
  assert.ok(READ_ENV.includes("TMPDIR")); // read by os.tmpdir(), not by name
});
