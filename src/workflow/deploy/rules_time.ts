/**
 * The `time` of a deploy rule: a span (`90s`, `10m`, `1h30m`), a number of
 * seconds, or one of SLURM's own `--time` forms (`MM:SS`, `HH:MM:SS`,
 * `D-HH`, `D-HH:MM`, `D-HH:MM:SS`), each turned into `[D-]HH:MM:SS`.
 *
 * A colon form is read from its text as written: Psych (YAML 1.1) would read
 * a plain `30:00` as the sexagesimal integer 108000, which no one writing a
 * SLURM time means (`parseRules` passes the written text here).
 *
 * @module
 */
import { ScoutError } from "../../errors.ts";

const UNIT = { d: 86400, h: 3600, m: 60, s: 1 } as const;
/** SLURM's colon and day forms: `D-HH[:MM[:SS]]`, `MM:SS`, `HH:MM:SS`. */
const CLOCK = /^(?:(\d+)-(\d+)(?::(\d+))?(?::(\d+))?|(\d+):(\d+)(?::(\d+))?)$/;

function clockSeconds(s: string): number | undefined {
  const m = CLOCK.exec(s);
  if (m === null) return undefined;
  const n = (i: number) => Number(m[i] ?? 0);
  if (m[1] !== undefined) return n(1) * 86400 + n(2) * 3600 + n(3) * 60 + n(4);
  // MM:SS, or HH:MM:SS (SLURM's reading of two and three parts)
  return m[7] === undefined ? n(5) * 60 + n(6) : n(5) * 3600 + n(6) * 60 + n(7);
}

function spanSeconds(s: string, file?: string): number {
  if (/^\d+$/.test(s)) return Number(s);
  const re = /(\d+(?:\.\d+)?)\s*([dhms])/gy;
  let secs = 0;
  let used = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) {
    secs += Number(m[1]) * UNIT[m[2] as keyof typeof UNIT];
    used = re.lastIndex;
  }
  if (used !== s.length || s === "") {
    throw new ScoutError(
      "deploy_rules",
      `Time "${s}" is not a time span (e.g. 90s, 10m, 2h, 1d, 30:00, 01:30:00, 1-12)`,
      { ...(file !== undefined ? { file } : {}) },
    );
  }
  return secs;
}

/**
 * A time span as SLURM wants it: `90s`, `10m`, `2h`, `1d`, combinations
 * (`1h30m`), a number of seconds, or SLURM's `MM:SS`, `HH:MM:SS`, `D-HH`,
 * `D-HH:MM`, `D-HH:MM:SS`.
 *
 * @param v the rule value
 * @param file rules file (for the error)
 * @returns `D-HH:MM:SS` or `HH:MM:SS`
 * @throws ScoutError `deploy_rules` when it is not a time
 */
export function slurmTime(v: unknown, file?: string): string {
  const s = String(v).trim();
  const secs = Math.ceil(clockSeconds(s) ?? spanSeconds(s, file));
  const d = Math.floor(secs / 86400);
  const h = Math.floor((secs % 86400) / 3600);
  const m = Math.floor((secs % 3600) / 60);
  const two = (n: number) => String(n).padStart(2, "0");
  const hms = `${two(h)}:${two(m)}:${two(secs % 60)}`;
  return d > 0 ? `${d}-${hms}` : hms;
}

/**
 * The seconds of a time in the form {@link slurmTime} gives.
 *
 * @param t `[D-]HH:MM:SS`
 * @returns seconds
 */
export function timeSeconds(t: string): number {
  return clockSeconds(t) ?? 0;
}

/**
 * The rule sets' `time` values that Psych read as sexagesimal integers
 * (`30:00`), put back as written, so {@link slurmTime} reads them as SLURM
 * does. Changes `raw` in place.
 *
 * @param raw the parsed rules
 * @param sourceOf a scalar's text as written, by key path
 */
export function timesAsWritten(
  raw: Record<string, unknown>,
  sourceOf: (path: readonly string[]) => string | undefined,
): void {
  const fix = (set: unknown, path: string[]) => {
    if (!isMap(set) || typeof set.time !== "number") return;
    const text = sourceOf([...path, "time"]);
    if (text !== undefined && text.includes(":")) set.time = text;
  };
  fix(raw.defaults, ["defaults"]);
  for (const [wf, section] of Object.entries(raw)) {
    if (wf === "defaults" || wf === "chains" || !isMap(section)) continue;
    for (const [k, set] of Object.entries(section)) if (k !== "chains") fix(set, [wf, k]);
  }
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
