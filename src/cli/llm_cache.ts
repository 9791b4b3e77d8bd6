/**
 * `scout-ai llm cache clean [--older AGE] [--dry-run] [--json]`: the
 * inference cache's leftovers of dead processes, and with `--older` the
 * entries not used for that long (`llm/cache_clean.ts`). The age and its
 * spelling are `system clean`'s.
 *
 * `--json` (version 1): `{"version":1,"dir","dryRun","olderSeconds","entries",
 * "removed":[{"file","bytes","lastUsed"}],"kept":[{"file","reason"}],
 * "failed":[{"file","error"}],"locks":[…],"holders":[…],"temps":[…],"bytes"}`;
 * in a dry run, `failed` lists what a real run could not remove.
 *
 * @module
 */
import { Option } from "@commander-js/extra-typings";
import type { Command } from "@commander-js/extra-typings";
import { usageError } from "../errors.ts";
import { scoutHome } from "../config/home.ts";
import { formatAge, formatBytes } from "../util/age.ts";
import type { CacheCleanOutcome, CacheEntryRemoved } from "../llm/cache_clean.ts";
import type { CliContext } from "./context.ts";
import type { Io } from "./io.ts";
import { paint, warn } from "./io.ts";
import { olderOption } from "./system_clean.ts";
import { realPart } from "./store_part.ts";
import { fittedHelp } from "./help_layout.ts";
import { jsonText } from "../util/json_text.ts";

/** Options of `llm cache clean`. */
export interface CacheCleanCliOptions {
  /** `--older AGE`, as typed. */
  older?: string;
  /** `--dry-run`. */
  dryRun?: boolean;
  /** `--json`. */
  json?: boolean;
}

/**
 * `llm cache clean`.
 *
 * @param opts options
 * @param io injected I/O
 * @returns exit code: 0, or 1 when something could not be removed (never
 *   in a dry run, which removes nothing: R142-6)
 */
export async function runCacheClean(opts: CacheCleanCliOptions, io: Io): Promise<number> {
  const olderMs = olderOption(opts.older);
  const { cacheDir } = await import("../llm/cache.ts");
  const { cleanCache } = await import("../llm/cache_clean.ts");
  const home = scoutHome(io.env);
  const dir = cacheDir(home);
  // R125-3: not through a link another user made in the store (then nothing is cleaned)
  const real = realPart(home, ["var", "cache", "ask"], io, "the cache is not cleaned");
  const dryRun = Boolean(opts.dryRun);
  const listed = (e: CacheEntryRemoved) => {
    const age = formatAge(Date.now() - e.lastUsedMs);
    io.stdout.write(`would remove ${e.file} (last used ${age} ago, ${formatBytes(e.bytes)})\n`);
  };
  const out: CacheCleanOutcome = real === null
    ? { entries: 0, removed: [], kept: [], failed: [], locks: [], holders: [], temps: [] }
    : await cleanCache(real, {
      olderMs,
      dryRun,
      // R125: nor its holders' directory through a link another user made there
      holdersDir: realPart(real, [".holders"], io, "dead processes' holder files are not swept"),
      ...(dryRun && !opts.json ? { onRemoved: listed } : {}),
    });
  const bytes = out.removed.reduce((n, e) => n + e.bytes, 0);
  if (opts.json) {
    io.stdout.write(jsonText(cacheJson(out, { dir, dryRun, olderMs, bytes })) + "\n");
  } else report(out, io, { dryRun, olderMs, bytes });
  return out.failed.length > 0 && !dryRun ? 1 : 0;
}

/** Failures named one by one before the rest are counted. */
const FAILED_SHOWN = 5;

function report(
  out: CacheCleanOutcome,
  io: Io,
  c: { dryRun: boolean; olderMs: number | null; bytes: number },
): void {
  for (const k of out.kept) io.stderr.write(`kept ${k.file}: ${k.reason}\n`);
  // the first few, then a count: a read-only shared cache of 10k entries gave 10k lines (R166-5)
  for (const f of out.failed.slice(0, FAILED_SHOWN)) {
    // a dry run fails on nothing it would not remove; it names what a real run could not
    if (c.dryRun) warn(io, `a real run cannot remove ${f.file}: ${f.error}`);
    else {
      io.stderr.write(
        `${paint(io, "stderr", "red", "scout-ai:")} cannot remove ${f.file}: ${f.error}\n`,
      );
    }
  }
  const more = out.failed.length - FAILED_SHOWN;
  if (more > 0) {
    const files = `${more} more file${more === 1 ? "" : "s"}`;
    const all = "(--json lists them all)";
    if (c.dryRun) warn(io, `… and ${files} a real run cannot remove ${all}`);
    else {
      const line = `… and ${files} that cannot be removed ${all}`;
      io.stderr.write(`${paint(io, "stderr", "red", "scout-ai:")} ${line}\n`);
    }
  }
  const n = (k: number, what: string, many = `${what}s`) => `${k} ${k === 1 ? what : many}`;
  const verb = c.dryRun ? "would be removed" : "removed";
  const entries = c.olderMs === null
    ? `${n(out.entries, "entry", "entries")} (none removed without --older)`
    : `${out.removed.length} of ${n(out.entries, "entry", "entries")} ${verb} (${
      formatBytes(c.bytes)
    })`;
  const debris = [
    n(out.locks.length, "stale lock"),
    n(out.holders.length, "dead holder"),
    n(out.temps.length, "temp file"),
  ].join(", ");
  const kept = (out.kept.length > 0 ? `; ${out.kept.length} kept` : "") +
    (out.failed.length > 0 && !c.dryRun ? `; ${out.failed.length} not removable` : "");
  io.stdout.write(`${entries}${kept}; ${debris} ${verb}\n`);
}

function cacheJson(
  out: CacheCleanOutcome,
  c: { dir: string; dryRun: boolean; olderMs: number | null; bytes: number },
) {
  return {
    version: 1,
    dir: c.dir,
    dryRun: c.dryRun,
    olderSeconds: c.olderMs === null ? null : c.olderMs / 1000,
    entries: out.entries,
    removed: out.removed.map((e) => ({
      file: e.file,
      bytes: e.bytes,
      lastUsed: new Date(e.lastUsedMs).toISOString(),
    })),
    kept: out.kept,
    failed: out.failed,
    locks: out.locks,
    holders: out.holders,
    temps: out.temps,
    bytes: c.bytes,
  };
}

const CLEAN_HELP = `
The cache lives in $SCOUT_HOME/var/cache/ask, one <key>.json per answered
round. Always removed: what dead processes left (stale <key>.lock files, their
.holders/ files, half-written temp files); a live process's stay. With --older,
also the entries not used for that long: last stored or last read by a hit,
known to within 10 minutes (a hit moves its entry's time at most that often,
so an AGE under 10m may remove an entry hit that long ago; another user's
entry, whose time only the kernel moves, to within a day). An entry whose
key a running ask holds (its <key>.lock) is never removed; each is removed
under that lock, as an ask takes it, in one step, so a concurrent ask reads
the whole entry or none (then it asks the model again; --offline fails
not_cached). AGE as in 'system clean': 30d, 12h, 2w, 3mo, 1y, 90m (m is
minutes), 0; a bare number counts days; the unit right after its number, no
decimals. Exit 1 when something could not be removed (a --dry-run removes
nothing: it exits 0, and warns of what a real run could not remove), 2 on a
usage error.

Examples:
  scout-ai llm cache clean --older 90d --dry-run   # list what would go
  scout-ai llm cache clean --older 90d
  scout-ai llm cache clean                         # dead processes' leftovers
  scout-ai llm cache clean --older 6mo --json | jq .bytes`;

/**
 * Registers `llm cache clean`.
 *
 * @param llm the `llm` command
 * @param ctx invocation context
 */
export function registerLlmCache(llm: Command, ctx: CliContext): void {
  const cache = llm.command("cache").description(
    "look after the inference cache ($SCOUT_HOME/var/cache/ask)",
  ).addHelpText(
    "after",
    fittedHelp(
      "\nExamples:\n  scout-ai llm cache clean --older 90d --dry-run   # list what would go\n" +
        "  scout-ai llm cache clean                         # dead processes' leftovers",
    ),
  );
  cache.command("clean")
    .description("remove entries unused for --older AGE and dead processes' leftovers")
    .option("-o, --older <age>", "also remove entries unused for longer than AGE (e.g. 90d)")
    .addOption(new Option("--older-than <age>", "same as --older").hideHelp())
    .option("--dry-run", "list what would be removed; remove nothing")
    .option("--json", "print {version, dir, entries, removed, kept, failed, locks, bytes…}")
    .addHelpText("after", fittedHelp(CLEAN_HELP))
    .action(async (o) => {
      if (o.older !== undefined && o.olderThan !== undefined) {
        throw usageError("--older and --older-than are one option: give it once");
      }
      const older = o.older ?? o.olderThan;
      ctx.exitCode = await runCacheClean({
        ...(older !== undefined ? { older } : {}),
        dryRun: Boolean(o.dryRun),
        json: Boolean(o.json),
      }, ctx.io);
    });
}
