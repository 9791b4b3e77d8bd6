/**
 * The lock-file time is local as `.info` times are (R163-1), and a local time
 * without an offset parses back under the same `TZ`: with a `TZ` the runtime
 * cannot read (Deno's dates are UTC under `<+0545>-5:45`), both follow libc.
 */
import assert from "node:assert/strict";
import { lockTime, parseRubyTime, rubyTime } from "../../src/workflow/time.ts";

Deno.test("lockTime and rubyTime write libc's local time under a TZ the runtime cannot read", () => {
  const before = process.env.TZ;
  process.env.TZ = "<+0545>-5:45";
  try {
    const at = new Date(Date.UTC(2026, 11, 7, 22, 21, 14, 123));
    assert.equal(rubyTime(at), "2026-12-08 04:06:14 +0545");
    assert.equal(lockTime(at), "2026-12-08 04:06:14.123000");
    assert.equal(parseRubyTime(lockTime(at))?.getTime(), at.getTime());
    process.env.TZ = "CET-1CEST,M3.5.0,M10.5.0/3";
    const summer = new Date(Date.UTC(2026, 6, 1, 10));
    assert.equal(rubyTime(summer), "2026-07-01 12:00:00 +0200");
    assert.equal(parseRubyTime("2026-07-01 12:00:00.000000")?.getTime(), summer.getTime());
  } finally {
    if (before === undefined) delete process.env.TZ;
    else process.env.TZ = before;
  }
});
