/**
 * `llm prov --tools` shortens a long tool name and long arguments in the
 * middle between characters (R151-7): `shortenMiddle` cut by UTF-16 unit
 * and printed half an emoji on each side of its `…`, which a terminal or a
 * file shows as U+FFFD.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { print } from "../../src/chat/print.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { write } from "./support.ts";

Deno.test("llm prov --tools: a tool name and arguments of emoji are shortened between characters", async () => {
  await using dir = await tempDir();
  const name = "😀".repeat(20); // 40 units: cut to 32
  const args = { cmd: "🚀".repeat(40) }; // cut to 60
  const root = write(
    join(dir.path, "session.chat"),
    print([
      { role: "user", content: "go" },
      { role: "function_call", content: JSON.stringify({ name, arguments: args, id: "a" }) },
      { role: "function_call_output", content: JSON.stringify({ name, content: "ok", id: "a" }) },
    ]),
  );
  const jobs = join(dir.path, "jobs");
  mkdirSync(jobs);
  const r = await runMain(["llm", "prov", root, "--jobs-dir", jobs, "--tools"], {
    env: { SCOUT_HOME: join(dir.path, "home"), NO_COLOR: "1" },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stdout.isWellFormed(), JSON.stringify(r.stdout));
  assert.ok(!r.stdout.includes("\ufffd"), r.stdout);
  const row = r.stdout.split("\n")[1]!;
  assert.ok(row.startsWith("😀".repeat(8) + "…" + "😀".repeat(7) + " "), row);
  assert.match(row, /\{"cmd":"🚀+…🚀+"\}$/u);
});
