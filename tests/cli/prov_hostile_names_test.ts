/**
 * R150: names `llm prov` reads from the disk reach every output whole and
 * harmless — a job's short id cut on characters, not UTF-16 units (an emoji
 * cut in half made `--json` unreadable to jq and drew `ud83c` in Graphviz),
 * and an error naming a file that holds escape sequences prints them escaped
 * on stderr (they cleared the screen or set the window title), kept as they
 * are in `--json`'s error document.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { jobShortId } from "../../src/provenance/labels.ts";
import { runMain, tempDir } from "../support/cli.ts";

/** Lone surrogates, as JSON writes them (`\ud83c`) or as they stand in a string. */
const LONE = /\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])|[\ud800-\udbff](?![\udc00-\udfff])/i;

/** Whether `s` holds a raw ESC or BEL. */
const rawControl = (s: string) => s.includes("\x1b") || s.includes("\x07");

Deno.test("R150-1: a job's short id keeps whole characters; prov --json, --dot and the tree stay well-formed", async () => {
  assert.equal(jobShortId("/j/W/t/Default_a🍞🍞🍞🍞.chat"), "a🍞🍞🍞🍞.ch");
  assert.equal(jobShortId("/j/W/t/Default_0123456789abcdef"), "01234567");
  await using dir = await tempDir();
  const name = "Default_a🍞🍞🍞🍞.chat";
  const jobs = join(dir.path, "jobs");
  mkdirSync(join(jobs, "W", "t"), { recursive: true });
  writeFileSync(join(jobs, "W", "t", name), "user:\n\nx\n");
  writeFileSync(
    join(jobs, "W", "t", `${name}.info`),
    '{"status":"done","type":"chat","dependencies":[]}',
  );
  const root = join(dir.path, "root.chat");
  writeFileSync(root, `user:\n\nhi\n\nmeta: job=W/t/${name}\n\nassistant:\n\nok\n`);
  const env = { SCOUT_HOME: join(dir.path, "home"), NO_COLOR: "1" };
  for (const view of [["--json"], ["--dot", "-"], []]) {
    const r = await runMain(["llm", "prov", root, "-J", jobs, ...view], { env, cwd: dir.path });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, LONE, `${view.join(" ") || "tree"}: ${r.stdout}`);
    assert.ok(!r.stdout.includes("\ufffd"), r.stdout);
    assert.ok(r.stdout.includes("a🍞🍞🍞🍞.ch"), r.stdout);
  }
});

Deno.test("R150-2: an error naming a file with escape sequences prints them escaped; --json keeps the name", async () => {
  await using dir = await tempDir();
  const env = { SCOUT_HOME: join(dir.path, "home"), NO_COLOR: "1" };
  const evil = "d\x1b[2J\x1b]0;pwned\x07.chat";
  mkdirSync(join(dir.path, evil));
  const r = await runMain(["llm", "prov", evil], { env, cwd: dir.path });
  assert.equal(r.code, 1);
  assert.ok(!rawControl(r.stderr), JSON.stringify(r.stderr));
  assert.match(r.stderr, /d\\u001b\[2J\\u001b\]0;pwned\\u0007\.chat/);
  const missing = await runMain(["llm", "prov", `bad\x1b]0;t\x07.chat`, "--json"], {
    env,
    cwd: dir.path,
  });
  assert.equal(missing.code, 1);
  assert.ok(!rawControl(missing.stderr), JSON.stringify(missing.stderr));
  assert.ok(
    JSON.parse(missing.stdout.trim()).error.includes("bad\x1b]0;t\x07.chat"),
    missing.stdout,
  );
});
