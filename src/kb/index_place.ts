/**
 * Where a database's index is kept: `<kb>/.scout-ai-index/<db>.idx`; when
 * the knowledge base's directory refuses it (read-only, shared, another
 * user's), `$SCOUT_HOME/var/cache/kb/<sha256 of its path>/<db>.idx`; when
 * that refuses it too (a read-only home), a private temporary directory of
 * the process, removed at exit, with one warning saying why (R92-7). The
 * first current index found is used; a missing or stale one is rebuilt in
 * the first place that takes it, by one process at a time
 * (`index_builders.ts`).
 *
 * @module
 */
import { join, resolve } from "node:path";
import { scoutHome } from "../config/home.ts";
import { ScoutError } from "../errors.ts";
import { errnoReason } from "../util/errno_text.ts";
import { refusedByFileSystem } from "../util/fs_refused.ts";
import { sha256hex } from "../util/hash.ts";
import { processTempDir, tempBase } from "../util/process_temp_dir.ts";
import { statsVouch } from "../util/racy_stat.ts";
import { type AssociationStore, openStore } from "./store.ts";
import { buildOnce, sweepDeadBuilds } from "./index_builders.ts";
import { buildStore, type StoreInput } from "./store_build.ts";
import type { IndexMeta } from "./store_format.ts";
import { currentWarningSink } from "../util/warn_once.ts";

/** What the index's places depend on: a knowledge base (`database.ts`'s `KnowledgeBase`). */
export interface IndexOwner {
  /** The knowledge base's directory. */
  dir: string;
  /** Environment (`SCOUT_HOME`, `TMPDIR`). */
  env: Record<string, string | undefined>;
  /** Where a warning goes (default: stderr, `scout-ai: warning: …`). */
  warn?: (message: string) => void;
}

/** The name of this process's temporary directory of indexes (`mkdtemp` adds six characters). */
const TEMP_PREFIX = "scout-ai-kb-";

/**
 * Where a database's index lives: `<kb>/.scout-ai-index/<db>.idx` (when
 * that directory refuses it, {@link indexCachePath}).
 *
 * @param kb the knowledge base
 * @param name the database
 * @returns the index file
 */
export function indexPath(kb: IndexOwner, name: string): string {
  return join(kb.dir, ".scout-ai-index", `${encodeURIComponent(name)}.idx`);
}

/** `$SCOUT_HOME/var/cache/kb`: the indexes of knowledge bases that cannot hold their own. */
function cacheRoot(kb: IndexOwner): string {
  return join(scoutHome(kb.env), "var", "cache", "kb");
}

/**
 * Where a database's index lives when its knowledge base cannot hold one (a
 * read-only, shared or another user's directory):
 * `$SCOUT_HOME/var/cache/kb/<sha256 of the knowledge base's path>/<db>.idx`.
 *
 * @param kb the knowledge base
 * @param name the database
 * @returns the index file
 */
export function indexCachePath(kb: IndexOwner, name: string): string {
  return join(cacheRoot(kb), sha256hex(resolve(kb.dir)), `${encodeURIComponent(name)}.idx`);
}

/**
 * Whether an index was built from this TSV file as it is now: the same stats,
 * and the file had not changed for `RACY_MS` before it was read
 * ({@link statsVouch}: a rewrite of the same size within the timestamps'
 * granularity leaves every stat equal). An older index lacks ino, ctime or
 * the read's time: stale.
 */
function fresh(meta: IndexMeta, want: Omit<IndexMeta, "count">): boolean {
  return meta.version === want.version && meta.tsv === want.tsv && meta.size === want.size &&
    meta.mtimeMs === want.mtimeMs && meta.ctimeMs === want.ctimeMs && meta.ino === want.ino &&
    meta.optionsKey === want.optionsKey && vouched(meta);
}

/**
 * Whether the TSV stats an index records vouch for its content ({@link statsVouch}).
 *
 * @param meta the index's meta
 * @returns whether it may be trusted without rereading the TSV
 */
export function vouched(meta: IndexMeta): boolean {
  const { readAtMs, mtimeMs, ctimeMs } = meta;
  return readAtMs !== undefined && ctimeMs !== undefined &&
    statsVouch(readAtMs, { mtimeMs, ctimeMs });
}

/** Indexes built in the process's temporary directory, by {@link indexPath}. */
const temporary = new Map<string, string>();

/** The index at `path` when it is current; null when missing, stale, or refused by the file system. */
function openCurrent(path: string, want: Omit<IndexMeta, "count">): AssociationStore | null {
  let store: AssociationStore | null;
  try {
    store = openStore(path);
  } catch (e) {
    if (refusedByFileSystem(e)) return null;
    throw e;
  }
  if (store && fresh(store.meta, want)) return store;
  store?.close();
  return null;
}

/** The index just built at `path`, open. */
function openBuilt(path: string): AssociationStore {
  const store = openStore(path);
  if (!store) throw new ScoutError("io", `Cannot open the index "${path}" just built`);
  return store;
}

/**
 * A current index of database `name`: the one in the knowledge base, else
 * the one in the cache directory, else this process's temporary one, else
 * one built in the first of them that takes it ({@link indexPath}). The
 * place of the one found is swept of what dead builds of it left (R112-4).
 *
 * @param kb the knowledge base
 * @param name the database
 * @param want what the index must have been built from (TSV stats, options)
 * @param input the associations, for a build
 * @returns the open index
 * @throws ScoutError `io` when no place takes the index, naming each one and why
 */
export function currentIndex(
  kb: IndexOwner,
  name: string,
  want: Omit<IndexMeta, "count">,
  input: StoreInput,
): AssociationStore {
  const inKb = indexPath(kb, name);
  const places = [inKb, indexCachePath(kb, name), temporary.get(inKb)];
  for (const p of places) {
    const open = p === undefined ? null : openCurrent(p, want);
    if (open === null) continue;
    sweepDeadBuilds(p!); // (found, so a path)
    return open;
  }
  return buildIndex(kb, name, want, input);
}

/**
 * Builds the index in the knowledge base, else (refused there) in the cache
 * directory, else (refused too) in the process's temporary directory — in a
 * lasting place under its build lock, or the index another process built
 * meanwhile (`index_builders.ts`, R112-6).
 *
 * @returns the index, open
 */
function buildIndex(
  kb: IndexOwner,
  name: string,
  want: Omit<IndexMeta, "count">,
  input: StoreInput,
): AssociationStore {
  const refusals: string[] = [];
  const lasting: [string, string][] = [
    [kb.dir, indexPath(kb, name)],
    [cacheRoot(kb), indexCachePath(kb, name)],
  ];
  for (const [place, path] of lasting) {
    try {
      return buildOnce(path, {
        current: () => openCurrent(path, want),
        build: () => (buildStore(path, want, input), openBuilt(path)),
        tsvBytes: want.size,
      });
    } catch (e) {
      const refused = refusedByFileSystem(e);
      if (!refused) throw e;
      refusals.push(`"${place}": ${errnoReason(refused)}`);
    }
  }
  return openBuilt(buildTemporary(kb, name, want, input, refusals));
}

/**
 * Builds the index in the process's temporary directory (`mkdtemp`, 0700,
 * removed at exit: `util/process_temp_dir.ts`), warning the first time for
 * this database, with why the lasting places refused it.
 */
function buildTemporary(
  kb: IndexOwner,
  name: string,
  want: Omit<IndexMeta, "count">,
  input: StoreInput,
  refusals: string[],
): string {
  const inKb = indexPath(kb, name);
  const db = join(kb.dir, name);
  const base = tempBase(kb.env);
  let path = temporary.get(inKb);
  try {
    path ??= join(
      processTempDir(base, TEMP_PREFIX),
      sha256hex(resolve(kb.dir)),
      `${encodeURIComponent(name)}.idx`,
    );
    buildStore(path, want, input);
  } catch (e) {
    const errno = ((e as { cause?: unknown })?.cause ?? e) as NodeJS.ErrnoException;
    if (typeof errno?.code !== "string" || !/^E[A-Z0-9]+$/.test(errno.code)) throw e;
    refusals.push(`temporary directory "${base}": ${errnoReason(errno)}`);
    throw new ScoutError(
      "io",
      `Cannot write an index of "${db}" anywhere: ${refusals.join("; ")}`,
      { cause: e }, // (no one file: the message names each place)
    );
  }
  if (!temporary.has(inKb)) {
    temporary.set(inKb, path);
    const warn = kb.warn ?? currentWarningSink();
    warn(
      `cannot keep an index of "${db}" (${refusals.join("; ")}): ` +
        "built a temporary one, removed at exit",
    );
  }
  return path;
}
