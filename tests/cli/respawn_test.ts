/**
 * Which invocations run in a JIT-tuned child (`src/cli/respawn.ts`): only
 * `llm prov`, only inside the compiled binary, never with the variable set.
 */
import assert from "node:assert/strict";
import {
  isProvCommand,
  PROV_JIT_ENV,
  shouldRespawn,
  VALUED_GLOBALS,
} from "../../src/cli/respawn.ts";
import { buildProgram } from "../../src/cli/main.ts";
import { bufferIo } from "../support/buffer_io.ts";

const BINARY_URL = "file:///$bunfs/root/scout-ai";
const SOURCE_URL = "file:///home/u/scout-ai/cli.ts";

Deno.test("isProvCommand finds `llm prov` after global options and their values", () => {
  assert.ok(isProvCommand(["llm", "prov", "s.chat"]));
  assert.ok(isProvCommand(["--debug", "--log", "6", "--no-color", "llm", "prov"]));
  assert.ok(isProvCommand(["llm", "prov", "--json"]));
  assert.ok(!isProvCommand(["llm", "ask", "prov"]));
  assert.ok(!isProvCommand(["chat", "parse", "llm", "prov"]));
  assert.ok(!isProvCommand(["--log", "llm", "prov"])); // "llm" is --log's value here
  assert.ok(!isProvCommand(["llm"]));
  assert.ok(!isProvCommand(["--", "llm", "prov"]));
  assert.ok(!isProvCommand([]));
  // ChatAnalyst's tasks are walks too; other workflows are not
  assert.ok(isProvCommand(["workflow", "task", "ChatAnalyst", "chat_report", "--file", "s.chat"]));
  assert.ok(isProvCommand(["--log", "3", "workflow", "task", "ChatAnalyst", "chat_tokens"]));
  assert.ok(!isProvCommand(["workflow", "task", "Baking", "bake_muffin"]));
  assert.ok(!isProvCommand(["workflow", "info", "ChatAnalyst"]));
});

Deno.test("shouldRespawn: binary and prov and no variable set", () => {
  const args = ["llm", "prov", "s.chat"];
  assert.ok(shouldRespawn(args, {}, BINARY_URL));
  assert.ok(shouldRespawn(args, {}, "file:///B:/~BUN/root/scout-ai.exe"));
  assert.ok(!shouldRespawn(args, {}, SOURCE_URL));
  assert.ok(!shouldRespawn(args, { [PROV_JIT_ENV]: "0" }, BINARY_URL)); // the child itself
  assert.ok(!shouldRespawn(args, { [PROV_JIT_ENV]: "1" }, BINARY_URL)); // the user's choice
  assert.ok(!shouldRespawn(["--version"], {}, BINARY_URL));
  assert.ok(!shouldRespawn(["chat", "parse", "x.chat"], {}, BINARY_URL));
});

Deno.test("R81-2/R81-7: an argument naming an open file beyond stdin/out/err (<(…), >(…)) keeps one process", () => {
  for (
    const args of [
      ["llm", "prov", "/dev/fd/63"],
      ["llm", "prov", "s.chat", "--dot", "/dev/fd/63"],
      ["llm", "prov", "s.chat", "--html=/proc/self/fd/10"],
    ]
  ) assert.ok(!shouldRespawn(args, {}, BINARY_URL), args.join(" "));
  // the standard three are the child's too
  assert.ok(shouldRespawn(["llm", "prov", "s.chat", "--dot", "/dev/fd/1"], {}, BINARY_URL));
  assert.ok(shouldRespawn(["llm", "prov", "/dev/stdin"], {}, BINARY_URL));
});

Deno.test("VALUED_GLOBALS are exactly the program's global options that take a value", () => {
  const program = buildProgram({ io: bufferIo(), exitCode: 0, debug: false, logLevel: 5 });
  const valued = program.options.filter((o) => o.required || o.optional).map((o) => o.long);
  assert.deepEqual([...VALUED_GLOBALS].sort(), valued.sort());
});
