/**
 * The Scout identity of a job path, digested as `Step: <identity>` when the
 * job is a dependency (`workflow.md` §2.3): a port of scout-essentials'
 * `Resource.identify` (resource/util.rb) for the default resource (`Scout`,
 * pkgdir `scout`).
 *
 * Ruby tries each of `Path.path_maps` but `current` (the working directory
 * never counts), turning each map's pattern into a regular expression; a
 * match whose `PKGDIR` is `scout` gives `TOPLEVEL/SUBPATH/REST`, and the
 * shortest of those wins. Without one the path itself is kept. Then a
 * leading `$HOME` becomes `~`. So `~/.scout/var/jobs/W/t/N` →
 * `var/jobs/W/t/N`, `<cwd>/var/jobs/…` → its absolute path (or `~/…` under
 * the home), `/tmp/scout/var/jobs/…` → `var/jobs/…`.
 *
 * Not ported: the `lib`, `scout_essentials_lib` and `scout_gear_lib` maps
 * (they name where Ruby's code is installed). Port additions: the store's
 * `SCOUT_HOME`, when not `~/.scout`, stands for `~/.scout` (as everywhere in
 * scout-ai), and an explicit jobs directory stands for `~/.scout/var/jobs`.
 *
 * @module
 */
import { statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { homeDir } from "../config/home.ts";
import type { JobStore } from "./store.ts";

/** Ruby's default pkgdir (`Resource.default_resource.final_pkgdir`). */
const PKGDIR = "scout";

/** `Path.path_maps` in `Path.map_order`, without `current` and the lib maps. */
const PATH_MAPS: readonly string[] = [
  "{HOME}/.{PKGDIR}/{TOPLEVEL}/{SUBPATH}", // user (and default)
  "{HOME}/{TOPLEVEL}/{PKGDIR}/{SUBPATH}", // home
  "/usr/local/{TOPLEVEL}/{PKGDIR}/{SUBPATH}", // local
  "/{TOPLEVEL}/{PKGDIR}/{SUBPATH}", // global
  "/usr/{TOPLEVEL}/{PKGDIR}/{SUBPATH}", // usr
  "/fast/{TOPLEVEL}/{PKGDIR}/{SUBPATH}", // fast
  "/cache/{TOPLEVEL}/{PKGDIR}/{SUBPATH}", // cache
  "/bulk/{TOPLEVEL}/{PKGDIR}/{SUBPATH}", // bulk
  "/tmp/{PKGDIR}/{TOPLEVEL}/{SUBPATH}", // tmp
];

function escapeRegExp(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");
}

/** Ruby's pattern → regexp rewriting (`{TOPLEVEL}`, `.{PKGDIR}`, `/{X}` optional, `REST`). */
function mapRegExp(pattern: string, home: string): RegExp {
  const src = "^" + pattern
    .replace("{HOME}", () => escapeRegExp(home))
    .replace(/\{(TOPLEVEL)\}/g, "(?<$1>[^/]+)")
    .replace(/\.\{(PKGDIR)\}/g, "\\.(?<$1>[^/]+)")
    .replace(/\/\{([^}]+)\}/g, "(?:/(?<$1>[^/]+))?") +
    // Ruby's `.` is any character but LF
    "(?:/(?<REST>[^\\n]+))?/?$";
  return new RegExp(src);
}

/** `TOPLEVEL/SUBPATH/PATH/REST` of a match, or null when it is no match or not Scout's. */
function unlocated(re: RegExp, path: string, needPkgdir: boolean): string | null {
  const g = re.exec(path)?.groups;
  if (g === undefined) return null;
  if (needPkgdir && g.PKGDIR !== PKGDIR) return null;
  return ["TOPLEVEL", "SUBPATH", "PATH", "REST"].map((k) => g[k]).filter((v) => v !== undefined)
    .join("/");
}

/** Port stand-in: the store's `SCOUT_HOME`, when not `~/.scout`, for `~/.scout` (`TOPLEVEL/SUBPATH/REST`). */
function scoutHomeChoice(path: string, store: JobStore, home: string | null): string | null {
  if (home !== null && store.home === join(home, ".scout")) return null; // Ruby's user map
  return unlocated(mapRegExp("{HOME}/{TOPLEVEL}/{SUBPATH}", store.home), path, false);
}

/** Port stand-in: an explicit jobs root (not `$SCOUT_HOME/var/jobs`) for `~/.scout/var/jobs`. */
function explicitRootChoice(path: string, store: JobStore): string | null {
  if (store.createRoot === join(store.home, "var", "jobs")) return null;
  const m = new RegExp(`^${escapeRegExp(store.createRoot)}(?:/(?<REST>[^\\n]+))?/?$`).exec(path);
  return m ? "var/jobs" + (m.groups?.REST ? "/" + m.groups.REST : "") : null;
}

/**
 * The Scout identity of a job path (Ruby's `Resource.identify`): see the
 * module documentation. A relative path is returned as is.
 *
 * @param jobPath result path
 * @param store the job store (its `SCOUT_HOME` and an explicit jobs root)
 * @param env environment (for `HOME`)
 * @returns the identity text
 *
 * @example
 * ```ts
 * import { identifyJobPath } from "./identify.ts";
 * import { jobStore } from "./store.ts";
 * const env = { HOME: "/h" };
 * const store = jobStore({ env, cwd: "/h/proj" });
 * identifyJobPath("/h/.scout/var/jobs/W/t/N", store, env); // "var/jobs/W/t/N"
 * identifyJobPath("/h/proj/var/jobs/W/t/N", store, env); // "~/proj/var/jobs/W/t/N"
 * identifyJobPath("/srv/var/jobs/W/t/N", store, env); // "/srv/var/jobs/W/t/N"
 * ```
 */
export function identifyJobPath(
  jobPath: string,
  store: JobStore,
  env: Record<string, string | undefined> = process.env,
): string {
  if (!isAbsolute(jobPath)) return jobPath;
  let path = resolve(jobPath);
  if (!path.endsWith("/") && isDirectory(path)) path += "/";
  const explicit = explicitRootChoice(path, store);
  if (explicit !== null) return explicit;
  // without a home (no HOME, no passwd entry) the {HOME} maps and the "~" rewrite are skipped
  const home = homeDir(env);
  const maps = home === null ? PATH_MAPS.filter((p) => !p.includes("{HOME}")) : PATH_MAPS;
  const choices = [
    ...maps.map((p) => unlocated(mapRegExp(p, home ?? ""), path, true)),
    scoutHomeChoice(path, store, home),
  ].filter((c): c is string => c !== null);
  const identified = choices.length === 0
    ? path
    : choices.reduce((best, c) => c.length < best.length ? c : best);
  if (home === null) return identified;
  // Ruby appends the home minus its last character when it ends with "/" (so such a home never
  // turns into "~"); kept for parity
  const h = home.endsWith("/") ? home + home.slice(0, -1) : home;
  return identified.replace(new RegExp(`^${escapeRegExp(h)}(/|$)`), "~$1");
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
