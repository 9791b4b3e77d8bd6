/**
 * `scriptLine`: the line of a user's module on a thrown error's stack, in
 * Bun's frames (plain paths) and Deno's (`file://` URLs), the innermost
 * first; nothing for another file's frames or a value without a stack.
 */
import assert from "node:assert/strict";
import { scriptLine } from "../../src/util/script_line.ts";

const FILE = "/w/Agent/My Agent/agent.ts";

Deno.test("scriptLine: Bun's plain paths, Deno's file:// URLs, the innermost frame in the file", () => {
  const bun = "TypeError: x\n    at helper (/w/Agent/My Agent/agent.ts:2:10)\n" +
    "    at starDefault (/w/Agent/My Agent/agent.ts:4:24)\n    at /$bunfs/root/cli:6:20";
  assert.equal(scriptLine({ stack: bun }, FILE), 2);
  const deno = "Error: wf boom\n    at lib (file:///w/lib.ts:9:3)\n" +
    "    at file:///w/Agent/My%20Agent/agent.ts:4:1";
  assert.equal(scriptLine({ stack: deno }, FILE), 4);
});

Deno.test("scriptLine: undefined when no frame is in the file or there is no stack", () => {
  assert.equal(scriptLine({ stack: "Error: x\n    at f (/w/other.ts:1:1)" }, FILE), undefined);
  assert.equal(scriptLine({ stack: "Error: at /w/Agent/My Agent/agent.ts:3:1" }, FILE), undefined);
  assert.equal(scriptLine("boom", FILE), undefined);
  assert.equal(scriptLine(null, FILE), undefined);
});
