/**
 * `statusLine`: the progress line's bytes — drawn on a TTY stderr only,
 * dimmed in colour, erased once drawn (or always, when asked).
 */
import assert from "node:assert/strict";
import { bufferIo, statusLine } from "../../src/cli/io.ts";

const CLEAR = "\r\x1b[K";

Deno.test("statusLine: redraws in place, the status dimmed, the subject plain", () => {
  const io = bufferIo({ tty: true });
  const line = statusLine(io);
  line.show("start", "Baking/whisk/Default");
  line.show("2 completed");
  line.clear();
  assert.equal(
    io.stderrText(),
    `${CLEAR}\x1b[2mstart\x1b[22m Baking/whisk/Default${CLEAR}\x1b[2m2 completed\x1b[22m${CLEAR}`,
  );
  assert.equal(io.stdoutText(), "");
});

Deno.test("statusLine: no colour with NO_COLOR; clear erases only a drawn line unless always", () => {
  const io = bufferIo({ tty: true, env: { NO_COLOR: "1" } });
  const line = statusLine(io);
  line.clear();
  assert.equal(io.stderrText(), "");
  line.clear({ always: true });
  assert.equal(io.stderrText(), CLEAR);
  line.show("done", "x");
  line.clear();
  line.clear();
  assert.equal(io.stderrText(), `${CLEAR}${CLEAR}done x${CLEAR}`);
});

Deno.test("statusLine: nothing at all when stderr is not a TTY", () => {
  const io = bufferIo();
  const line = statusLine(io);
  line.show("start", "x");
  line.clear({ always: true });
  assert.equal(io.stderrText(), "");
});
