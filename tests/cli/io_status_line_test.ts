/**
 * `statusLine`: the progress line's bytes — drawn on a TTY stderr only,
 * dimmed in colour, erased once drawn (or always, when asked), cut to the
 * terminal's width (R102-11).
 */
import assert from "node:assert/strict";
import { bufferIo } from "../support/buffer_io.ts";
import { statusLine } from "../../src/cli/status_line.ts";
import { displayWidth, fitWidth } from "../../src/util/display_width.ts";

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

Deno.test("statusLine: cut to the terminal's width, one column left for the cursor; whole when it fits or the width is unknown (R102-11)", () => {
  const draw = (columns: number | undefined, status: string, subject?: string) => {
    const io = bufferIo({ tty: true, ...(columns === undefined ? {} : { columns }) });
    statusLine(io).show(status, subject);
    return io.stderrText();
  };
  const job = "Baking/cake/Default_6de77cf68f192";
  assert.equal(draw(20, "start", job), `${CLEAR}\x1b[2mstart\x1b[22m Baking/cake/…`);
  assert.equal(draw(6, "whisking", job), `${CLEAR}\x1b[2mwhis…\x1b[22m`); // cut in the status
  assert.equal(draw(40, "start", job), `${CLEAR}\x1b[2mstart\x1b[22m ${job}`);
  assert.equal(draw(undefined, "start", job), `${CLEAR}\x1b[2mstart\x1b[22m ${job}`);
  assert.equal(draw(0, "start", job), `${CLEAR}\x1b[2mstart\x1b[22m ${job}`); // a pty of unknown size
  // wide characters take two columns; a character is never split
  assert.equal(draw(11, "done", "日本語のジョブ"), `${CLEAR}\x1b[2mdone\x1b[22m 日本…`);
  assert.equal(draw(9, "done", "🍰🍰🍰🍰"), `${CLEAR}\x1b[2mdone\x1b[22m 🍰…`);
});

Deno.test("statusLine: a newline, tab or ESC in the subject is escaped to one line, then cut (R107-4)", () => {
  const draw = (columns: number | undefined, subject: string) => {
    const io = bufferIo({ tty: true, env: { NO_COLOR: "1" }, ...(columns ? { columns } : {}) });
    statusLine(io).show("start", subject);
    return io.stderrText();
  };
  const name = "ab\ncd\tef-long-job-name\x1b[2Jx";
  assert.equal(draw(undefined, name), `${CLEAR}start ab\\ncd\\tef-long-job-name\\u001b[2Jx`);
  const cut = draw(20, name);
  assert.equal(cut, `${CLEAR}start ab\\ncd\\tef-l…`);
  assert.equal(displayWidth(cut.slice(CLEAR.length)), 19);
  assert.equal(draw(20, "\u2028x"), `${CLEAR}start \\u2028x`);
});

Deno.test("fitWidth and displayWidth count characters and columns, not UTF-16 units (R102-11)", () => {
  assert.equal(displayWidth("abc"), 3);
  assert.equal(displayWidth("日本"), 4);
  assert.equal(displayWidth("👨‍👩‍👧"), 2); // one family emoji, five code points
  assert.equal(displayWidth("e\u0301"), 1); // a letter and its accent
  assert.equal(displayWidth("🇸🇪"), 2);
  assert.equal(fitWidth("abcdef", 6), "abcdef");
  assert.equal(fitWidth("abcdefg", 6), "abcde…");
  assert.equal(fitWidth("ab👨‍👩‍👧cd", 4), "ab…"); // the emoji would end at column 4: no room for …
  assert.equal(fitWidth("ab👨‍👩‍👧cd", 5), "ab👨‍👩‍👧…");
  assert.equal(fitWidth("ae\u0301iou", 3), "ae\u0301…");
  assert.equal(fitWidth("𝒜𝒜𝒜𝒜", 3), "𝒜𝒜…"); // astral, one column each: 8 UTF-16 units
  assert.equal(fitWidth("abc", 0), "");
  assert.equal(fitWidth("abc", 1), "…");
});
