/**
 * A job's `.info` dates are local time with its offset as libc (so Ruby and
 * `date`) has it for the `TZ` the job ran under, from the built binary and
 * from source alike (R163-1). Bun's dates were UTC under a POSIX `TZ` string
 * or a `:path`, so the binary wrote `+0000` for `TZ=UTC-14` (libc: +1400), for
 * `:/usr/share/zoneinfo/Asia/Kolkata` (+0530) — `:/etc/localtime` is common on
 * HPC nodes — and for `CET-1CEST,M3.5.0,M10.5.0/3`; Deno's too for the last
 * and for `<+0545>-5:45`.
 */
import assert from "node:assert/strict";
import { copyFileSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { parseRubyTime } from "../../src/workflow/time.ts";
import {
  buildBinary,
  type CliResult,
  runBinary,
  runCommand,
  runScout,
  tempDir,
} from "../support/cli.ts";

const ARGS = ["workflow", "task", "fixtures/workflows/Baking", "whisk", "--eggs", "5"];

/** What `date` prints for the instant of `issued` under `tz`, in Ruby's `Time#to_s` form. */
async function libcTime(tz: string, issued: string): Promise<string> {
  const secs = parseRubyTime(issued)!.getTime() / 1000;
  const r = await runCommand("date", ["-d", `@${secs}`, "+%Y-%m-%d %H:%M:%S %z"], {
    env: { TZ: tz },
  });
  return r.stdout.trim();
}

async function issuedUnder(
  run: (args: string[], opts: { env: Record<string, string> }) => Promise<CliResult>,
  tz: string,
  home: string,
): Promise<string> {
  const r = await run([...ARGS, "--print-path"], { env: { TZ: tz, SCOUT_HOME: home } });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "", `TZ=${tz}`);
  return JSON.parse(readFileSync(`${r.stdout.trim()}.info`, "utf8")).issued;
}

async function assertLocalTimes(
  name: string,
  run: (args: string[], opts: { env: Record<string, string> }) => Promise<CliResult>,
): Promise<void> {
  await using d = await tempDir();
  const link = join(d.path, "localtime");
  symlinkSync("/usr/share/zoneinfo/Asia/Kathmandu", link);
  const forms = [
    "UTC-14",
    "GMT+5",
    ":/usr/share/zoneinfo/Asia/Kolkata",
    `:${link}`,
    "<+0545>-5:45",
    "CET-1CEST,M3.5.0,M10.5.0/3",
    "Europe/Berlin",
  ];
  const wrong: string[] = [];
  for (const [i, tz] of forms.entries()) {
    const issued = await issuedUnder(run, tz, join(d.path, `home-${i}`));
    const libc = await libcTime(tz, issued);
    if (issued !== libc) wrong.push(`TZ=${tz}: ${issued} (date: ${libc})`);
  }
  assert.deepEqual(wrong, [], name);
  // a zone file copied out of zoneinfo is not read here: the runtime's offset stands, said once
  const copy = join(d.path, "copied");
  copyFileSync("/usr/share/zoneinfo/Asia/Kathmandu", copy);
  const r = await run(ARGS, { env: { TZ: `:${copy}`, SCOUT_HOME: join(d.path, "home-copy") } });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^scout-ai: warning: TZ=":[^"]+copied" is no zone name, [^\n]+\n$/);
}

Deno.test("binary: .info times are local with libc's offset under POSIX and :path TZ values", async () => {
  await buildBinary();
  await assertLocalTimes("binary", runBinary);
});

Deno.test("source: .info times are local with libc's offset under POSIX and :path TZ values", async () => {
  await assertLocalTimes("source", runScout);
});
