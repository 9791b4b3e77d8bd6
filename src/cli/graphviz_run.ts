/**
 * Running Graphviz `dot` on DOT text: the text is written to a file `dot`
 * reads, and what it draws to a file read back — never through the child's
 * stdin, as Deno's `spawnSync` with `input` returns neither exit status nor
 * stderr when the child exits before reading all of it (a `dot` that failed
 * early was reported as "exit undefined" with what it said lost).
 *
 * @module
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { processTempFile, tempBase } from "../util/process_temp_dir.ts";

/** What one `dot` run gave: the drawing, or why there is none. */
export interface DotRun {
  /** The drawn bytes when `dot` exited 0 and wrote them; null otherwise. */
  drawn: Uint8Array | null;
  /** Set when `dot` could not be started (`code` `ENOENT`: not on PATH). */
  error?: NodeJS.ErrnoException;
  /** The exit status, null when killed by a signal or not started. */
  status: number | null;
  /** The signal that killed it, if one did. */
  signal: string | null;
  /** What it wrote to stderr. */
  stderr: string;
}

/**
 * Draws `dot` text as `format` (`svg`, `png`, `pdf`) with the `dot` found
 * on `env`'s PATH, through files of a temp directory of its own under
 * `env`'s `TMPDIR`, removed after the call (and at exit, a signal's too:
 * R166-4).
 */
export function runDot(
  dot: string,
  format: string,
  env: Record<string, string | undefined>,
): DotRun {
  // a directory of its own, removed after the call (a process drawing often, or a test
  // worker whose exit runs no hook, keeps none) and at exit on a signal mid-call
  const dir = mkdtempSync(join(tempBase(env), "scout-dot-"));
  const forget = processTempFile(dir);
  const src = join(dir, "graph.dot");
  const out = join(dir, `graph.${format}`);
  try {
    writeFileSync(src, dot);
    const r = spawnSync("dot", [`-T${format}`, src, "-o", out], {
      env: env as NodeJS.ProcessEnv,
      encoding: "utf8",
      stdio: ["ignore", "ignore", "pipe"],
      maxBuffer: 1 << 26,
    });
    const ok = r.error === undefined && r.status === 0;
    return {
      drawn: ok && existsSync(out) ? readFileSync(out) : null,
      error: r.error as NodeJS.ErrnoException | undefined,
      status: r.status ?? null,
      signal: r.signal ?? null,
      stderr: String(r.stderr ?? ""),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    forget();
  }
}
