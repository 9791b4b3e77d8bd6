/**
 * `localOffset` gives the offset libc gives for a `TZ` (R163-1): for every
 * form tzset(3) reads — zone names, `:`-prefixed names and zoneinfo paths,
 * links into zoneinfo, POSIX strings with and without DST rules, northern and
 * southern — at instants across three years (one a leap year) and a second either side of each
 * DST change, against `date +%z` run with the same `TZ`.
 */
import assert from "node:assert/strict";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { localOffset } from "../../src/util/local_offset.ts";
import { parsePosixTz } from "../../src/util/posix_tz.ts";
import { runCommand, tempDir } from "../support/cli.ts";
import { put } from "../support/files.ts";

const ZONEINFO = "/usr/share/zoneinfo";

/** `date +%z` under `tz` for each instant (seconds), as seconds east. */
async function libcOffsets(tz: string, instants: number[]): Promise<number[]> {
  await using d = await tempDir();
  // a file, not stdin: date's answer to 26,000 lines fills the pipe before they are all written
  const list = put(d.path, "instants", instants.map((s) => `@${s}\n`).join(""));
  const r = await runCommand("date", ["-f", list, "+%z"], { env: { TZ: tz } });
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim().split("\n").map((z) => {
    const secs = (+z.slice(1, 3) * 60 + +z.slice(3, 5)) * 60;
    return z[0] === "-" ? -secs : secs;
  });
}

/** Every 61 minutes and a second from 2026 to 2028 (a leap year: the `Jn` and `n` rules differ). */
function instants(): number[] {
  const out: number[] = [];
  const from = Date.UTC(2026, 0, 1) / 1000;
  for (let s = from; s < Date.UTC(2029, 0, 1) / 1000; s += 3661) out.push(s);
  return out;
}

async function assertLibc(tz: string, at: number[]): Promise<void> {
  const want = await libcOffsets(tz, at);
  const got = at.map((s) => localOffset(new Date(s * 1000), tz));
  const wrong = at.flatMap((s, i) => got[i] === want[i] ? [] : [`@${s}: ${got[i]} ≠ ${want[i]}`]);
  assert.deepEqual(wrong.slice(0, 5), [], `TZ=${tz}`);
}

const FORMS = [
  "UTC",
  "Europe/Berlin",
  ":Europe/Berlin",
  `:${ZONEINFO}/Asia/Kolkata`,
  `:${ZONEINFO}/America/Sao_Paulo`,
  ":/etc/localtime",
  "UTC-14",
  "GMT+5",
  "<+0545>-5:45",
  "<-0330>3:30",
  "CET-1CEST,M3.5.0,M10.5.0/3",
  "EST5EDT",
  "NZST-12NZDT,M9.5.0,M4.1.0/3",
  "XXX-10YYY-11:30,M10.1.0,M4.1.0/3",
  "AAA3BBB,J60/2,J300",
  "AAA3BBB,59,299/-1",
  "<-03>3<-02>,M3.5.0/-2,M10.5.0/-1",
  "EET-2EEST-3:00:00,M3.5.0/3,M10.5.0/4",
];

Deno.test("localOffset: the offset date +%z gives, for each form of TZ", async () => {
  const at = instants();
  // a second either side of each change the grid crosses
  for (const tz of FORMS) {
    const want = await libcOffsets(tz, at);
    const edges = at.slice(1).flatMap((s, i) => want[i + 1] === want[i] ? [] : [at[i]!, s]);
    const exact: number[] = [];
    for (let k = 0; k < edges.length; k += 2) {
      const [lo, hi] = [edges[k]!, edges[k + 1]!];
      const offs = await libcOffsets(tz, [...Array(hi - lo + 1).keys()].map((d) => lo + d));
      const i = offs.findIndex((o) => o !== offs[0]);
      exact.push(lo + i - 1, lo + i);
    }
    await assertLibc(tz, [...at, ...exact]);
  }
});

Deno.test("localOffset: a link into zoneinfo names its zone, as /etc/localtime often is", async () => {
  await using d = await tempDir();
  const link = join(d.path, "localtime");
  symlinkSync(`${ZONEINFO}/Asia/Kathmandu`, link);
  await assertLibc(`:${link}`, instants());
  assert.equal(localOffset(new Date(0), `:${link}`), 5 * 3600 + 30 * 60);
});

Deno.test("parsePosixTz: reads tzset(3)'s forms and refuses what is not one", () => {
  assert.deepEqual(parsePosixTz("UTC-14"), { std: 14 * 3600 });
  assert.deepEqual(parsePosixTz("<+0545>-5:45"), { std: 5 * 3600 + 45 * 60 });
  assert.deepEqual(parsePosixTz("CET-1CEST,M3.5.0,M10.5.0/3"), {
    std: 3600,
    dst: {
      offset: 7200,
      start: { kind: "month", month: 3, week: 5, weekday: 0, time: 7200 },
      end: { kind: "month", month: 10, week: 5, weekday: 0, time: 10800 },
    },
  });
  for (
    const bad of [
      "Europe/Berlin",
      "UTC",
      "AB-1",
      "UTC-25",
      "CET-1CEST,M13.5.0,M10.5.0",
      "CET-1CEST,M3.6.0,M10.5.0",
      "CET-1CEST,J0,J300",
      "CET-1CEST,M3.5.0",
      "AAA3BBB",
      "CET-1CEST,M3.5.0,M10.5.0/168",
      "UTC-14 ",
      "<+05>",
    ]
  ) assert.equal(parsePosixTz(bad), null, bad);
});
