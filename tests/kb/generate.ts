/**
 * Generated Scout TSV association files for tests and the benchmark: a
 * `:double` file of `count` associations (`Gene` → `Partner` with `Score`
 * and `Evidence` fields), deterministic from a seed, and the expected
 * associations computed independently of the parser.
 */
import { writeFileSync } from "node:fs";
import { prng as rng } from "../../bench/prng.ts";

/** One expected association. */
export interface Expected {
  source: string;
  target: string;
  score: string;
  evidence: string;
}

/**
 * Writes a `:double` TSV of about `count` associations: `count / 10`
 * sources with 1–19 partners each, partners from a pool of `count / 20`.
 *
 * @returns the expected associations in file order (when `keep`)
 */
export function generateTsv(
  file: string,
  count: number,
  opts: { seed?: number; keep?: boolean } = {},
): { sources: string[]; expected: Expected[]; associations: number } {
  const next = rng(opts.seed ?? 42);
  const sources: string[] = [];
  const expected: Expected[] = [];
  const lines = ["#: :type=:double", "#Gene\tPartner\tScore\tEvidence"];
  const pool = Math.max(10, Math.floor(count / 20));
  let made = 0;
  for (let i = 0; made < count; i++) {
    const source = `G${i}`;
    sources.push(source);
    const n = Math.min(count - made, 1 + Math.floor(next() * 19));
    const targets = new Set<string>();
    while (targets.size < n) targets.add(`P${Math.floor(next() * pool)}`);
    const ts = [...targets];
    const scores = ts.map(() => (next() * 100).toFixed(2));
    const evidence = ts.map((_, j) => (j % 3 === 0 ? "exp;db" : j % 3 === 1 ? "text" : ""));
    lines.push(`${source}\t${ts.join("|")}\t${scores.join("|")}\t${evidence.join("|")}`);
    if (opts.keep) {
      ts.forEach((t, j) =>
        expected.push({ source, target: t, score: scores[j]!, evidence: evidence[j]! })
      );
    }
    made += n;
  }
  writeFileSync(file, lines.join("\n") + "\n");
  return { sources, expected, associations: made };
}
