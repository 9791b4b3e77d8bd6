/**
 * What the inference cache's file calls cost one inference, back to back and
 * at the agents bench's pace: the calls a missed round makes, in its order —
 * the probe (`existsSync`, a miss), the lock (`linkSync` of the holder file),
 * the re-check (`existsSync`), the entry's temp file (`openSync`, a create),
 * its text (`writeSync`, ~1 KB), `closeSync`, the publish (`renameSync`) and
 * the release (`unlinkSync` of the lock) — 300 times in a new directory under
 * the temp directory, from a child under Deno and under Bun, with nothing
 * between the sequences and then with 3 ms between them (the process falls
 * asleep, as it does while a request is out). Prints the median of the last
 * 250 per call, µs. Back to back every call is 5–20 µs; paced, the create
 * alone costs 5× that: on this machine a file call's cost depends on whether
 * the process has just woken (design-notes, "Eighth pass").
 *
 * The directory is removed at the end: run the agents bench five minutes
 * later, not at once (ext4 without a journal, `bench/agents_bench.ts`).
 *
 * Run: `tools/deno run -A bench/paced_fs.ts`
 *
 * @module
 */
import {
  closeSync,
  existsSync,
  linkSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { selfRuntimes } from "./self_children.ts";
import { median } from "./stats.ts";

const SEQUENCES = 300;
const WARM = 50;
const CALLS = ["probe", "lock", "re-check", "create", "write", "close", "rename", "release"];

function sequence(dir: string, holder: string, i: number, text: string): number[] {
  const key = join(dir, `k${i}`);
  const steps: (() => unknown)[] = [
    () => existsSync(`${key}.json`),
    () => linkSync(holder, `${key}.lock`),
    () => existsSync(`${key}.json`),
    () => openSync(`${key}.json.tmp`, "w"),
  ];
  const us: number[] = [];
  let fd = -1;
  for (const step of steps) {
    const t0 = performance.now();
    const got = step();
    us.push((performance.now() - t0) * 1000);
    if (typeof got === "number") fd = got;
  }
  const rest: (() => unknown)[] = [
    () => writeSync(fd, text),
    () => closeSync(fd),
    () => renameSync(`${key}.json.tmp`, `${key}.json`),
    () => unlinkSync(`${key}.lock`),
  ];
  for (const step of rest) {
    const t0 = performance.now();
    step();
    us.push((performance.now() - t0) * 1000);
  }
  return us;
}

async function child(paceMs: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "scout-paced-fs-"));
  try {
    const holder = join(dir, "holder");
    writeFileSync(holder, `${process.pid}@host`);
    const text = JSON.stringify({ v: 2, items: [{ text: "x".repeat(900) }] });
    const per: number[][] = CALLS.map(() => []);
    for (let i = 0; i < SEQUENCES; i++) {
      sequence(dir, holder, i, text).forEach((us, c) => per[c]!.push(us));
      if (paceMs > 0) await new Promise((r) => setTimeout(r, paceMs));
    }
    console.log(JSON.stringify(per.map((xs) => median(xs.slice(WARM)))));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log(
    `| runtime | pace | ${CALLS.join(" | ")} | all |\n|---|---|${"---:|".repeat(CALLS.length + 1)}`,
  );
  for (const rt of selfRuntimes(import.meta.url)) {
    for (const pace of [0, 3]) {
      const us = await rt.child([String(pace)]) as number[];
      const all = us.reduce((a, b) => a + b, 0);
      const paced = pace === 0 ? "back to back" : `${pace} ms apart`;
      console.log(
        `| ${rt.name} | ${paced} | ${us.map((u) => u.toFixed(0)).join(" | ")} | ${
          all.toFixed(0)
        } |`,
      );
    }
  }
}

const at = process.argv.indexOf("--child");
if (at >= 0) await child(Number(process.argv[at + 1]));
else if (import.meta.main) await main();
