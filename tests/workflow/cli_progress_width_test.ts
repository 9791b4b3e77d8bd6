/**
 * The progress line on a real terminal 40 columns wide (`script` gives the
 * command a pty, `stty` its size): each redraw is cut to 39 columns, so no
 * line wraps — `\r` + erase clears only a wrapped line's last row, and a
 * 40-column run of `cake` left nine rows behind (R102-11).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { displayWidth } from "../../src/util/display_width.ts";
import { DENO, SCOUT_SOURCE_ARGS, tempDir } from "../support/cli.ts";
import { BAKING } from "./cli_support.ts";

const CLEAR = "\r\x1b[K";

Deno.test("progress on a 40-column pty: every redraw fits in 39 columns, the result is whole (R102-11)", async () => {
  await using d = await tempDir();
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  const argv = [DENO, ...SCOUT_SOURCE_ARGS, "workflow", "task", BAKING, "cake", "--eggs", "57"];
  const cmd = `stty cols 40 rows 24 && ${[...argv, "--recompute"].map(quote).join(" ")}`;
  const out = await new Deno.Command("script", {
    args: ["-qec", cmd, "/dev/null"],
    cwd: d.path,
    env: { SCOUT_HOME: join(d.path, "home"), NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, text);
  const draws = text.split(CLEAR);
  assert.equal(draws.shift(), "", text); // the line starts with an erase
  const result = draws.pop()!; // after the last erase: the result, on stdout
  assert.match(result, /^Cake \(Whisked 57 soft, .*\)\r\n$/);
  assert.ok(draws.length >= 8, text);
  for (const line of draws) {
    assert.doesNotMatch(line, /[\r\n]/);
    assert.ok(displayWidth(line) <= 39, `${displayWidth(line)} columns: ${JSON.stringify(line)}`);
  }
  assert.ok(draws.some((l) => l.endsWith("…")), "the job paths are longer than the terminal");
});
