/**
 * `scout-ai llm prov ROOT` (`provenance.md` §10): explain how a chat file or
 * a job was produced — the chats, jobs, delegated agents and tokens behind
 * it — as a tree, a compact flow, Graphviz DOT/plots, an evidence report or
 * JSON (`scout-ai/provenance` v1, `docs/provenance-json.md`). Reads files
 * only; never runs a job, a tool or a model.
 *
 * @module
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Command } from "@commander-js/extra-typings";
import { ScoutError, usageError } from "../errors.ts";
import { isDirectory, isFile, writeFileAtomic, writeFileAtomicSync } from "../util/fs.ts";
import type { CliContext } from "./context.ts";
import type { Io } from "./io.ts";
import { canRedrawStderr, statusLine, warn } from "./io.ts";
import { checkJobsDir } from "./jobs_dir.ts";
import { incompleteLine } from "./llm_prov_incomplete.ts";
import { checkProvOptions, type LlmProvOptions } from "./llm_prov_options.ts";
import { scoutHome } from "../config/home.ts";
import { loadPrices, pricesFile } from "../provenance/prices.ts";
import type { ProvenanceReport } from "../provenance/report.ts";
import { collectIfGrown } from "../util/gc.ts";

/** Commander's message for a missing ROOT, and ours, which says what ROOT is. */
const MISSING_ROOT = "missing required argument 'root'";
const MISSING_ROOT_TEXT = "Missing ROOT: a chat file or a job path";
export type { LlmProvOptions };

/** The walk's progress on the status line (a terminal that can redraw it only). */
function progress(
  io: Io,
): { onProgress: (records: number, chats: number) => void; done: () => void } | undefined {
  if (!canRedrawStderr(io)) return undefined;
  const line = statusLine(io);
  let last = 0;
  return {
    onProgress: (records, chats) => {
      const now = Date.now();
      if (now - last < 100) return;
      last = now;
      line.show(`scout-ai: prov: ${records} records, ${chats} chats read…`);
    },
    done: () => line.clear({ always: true }),
  };
}

/**
 * The error for a directory given as ROOT (neither a chat file nor a job):
 * what is expected, and the job it is the `.files` of, or a chat in it.
 */
function notARoot(given: string, dir: string, isJob: (path: string) => boolean): ScoutError {
  let hint = "";
  const job = dir.replace(/\.files\/*$/, "");
  if (job !== dir && isJob(job)) hint = `: the job is ${given.replace(/\.files\/*$/, "")}`;
  else {
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch { /* unreadable: no example */ }
    const chat = names.filter((n) => n.endsWith(".chat") && isFile(join(dir, n))).sort()[0];
    if (chat !== undefined) hint = `: e.g. ${join(given, chat)}`;
  }
  return new ScoutError(
    "invalid_input",
    `${given} is a directory; llm prov takes a chat file or a job path ` +
      `(one with a .info or .files beside it)${hint}`,
  );
}

/**
 * Runs `llm prov`.
 *
 * @param opts command options
 * @param io injected I/O
 * @returns exit code (0 also when there are warnings)
 */
export async function runLlmProv(opts: LlmProvOptions, io: Io): Promise<number> {
  if (opts.root === undefined || opts.root === "") {
    throw usageError(MISSING_ROOT_TEXT);
  }
  if (opts.root === "-") {
    throw usageError("prov needs a file: a chat read from stdin has no provenance to walk");
  }
  const format = checkProvOptions(opts);
  // an unknown --by dimension is a usage error before anything is read
  if (opts.by !== undefined) {
    (await import("../provenance/rollup.ts")).parseRollupDimensions(opts.by);
  }
  for (const dir of opts.jobsDirs ?? []) checkJobsDir(dir, io.cwd);
  const p = await import("../provenance/mod.ts");
  const { path: root, rootType, jobRoots } = p.provenanceRoot(opts.root, {
    cwd: io.cwd,
    env: io.env,
    ...(opts.jobsDirs === undefined ? {} : { jobsDirs: opts.jobsDirs }),
  });
  if (rootType === "chat" && !isFile(root)) {
    if (isDirectory(root)) throw notARoot(opts.root, root, p.isJobPath);
    throw new ScoutError("root_not_found", `Chat not found: ${opts.root}`);
  }
  if (rootType === "chat" && root.endsWith(".info") && p.isJobPath(root.slice(0, -5))) {
    throw new ScoutError(
      "invalid_input",
      `${opts.root} is a job's info file, not a chat; llm prov takes the job path: ` +
        opts.root.replace(/\.info$/, ""),
    );
  }
  if (opts.tools) {
    return (await import("./llm_prov_tools.ts")).runProvTools({
      root,
      rootType,
      jobRoots,
      json: opts.json === true,
      warnings: opts.warnings !== false,
    }, io);
  }
  const shown = progress(io);
  // with prices, the tree, the page and the JSON show what each node cost
  const costs =
    (opts.json || opts.html !== undefined || (opts.by === undefined && !opts.mermaid)) &&
    existsSync(pricesFile(scoutHome(io.env)));
  const prices = costs ? await loadPrices(scoutHome(io.env)) : null;
  const report = p.provenanceReport(root, {
    rootType,
    cwd: io.cwd,
    jobRoots,
    env: io.env,
    ...(shown === undefined ? {} : { onProgress: shown.onProgress }),
    ...(prices === null ? {} : { prices }),
  });
  shown?.done();

  const view = { component: opts.component === true, long: opts.long === true };
  const views = opts.by !== undefined || opts.mermaid || opts.html !== undefined
    ? await import("./llm_prov_views.ts")
    : null;
  const byRollup = opts.by !== undefined ? await views!.loadRollup(report, opts.by, io) : null;
  if (opts.json) {
    let written = 0;
    for (let chunk of p.provenanceJsonChunks(report)) {
      // --by adds the optional "rollups" field (additive: still version 1)
      if (byRollup !== null && chunk.endsWith("]}\n")) {
        chunk = chunk.slice(0, -2) +
          `,\n"rollups":[${JSON.stringify(views!.rollupJson(byRollup.rollup))}]}\n`;
      }
      io.stdout.write(chunk);
      // every ~4 MB, collect the text already written once the process has grown
      // (JSC would keep it: the 2 GB store's document is ~0.9 GB; 1.1 GB peak without)
      if (++written % 64 === 0) collectIfGrown();
    }
  } else if (byRollup !== null) {
    views!.writeRollup(byRollup.rollup, byRollup.prices !== null, io);
    writeIncomplete(report, io);
  } else if (opts.mermaid) {
    views!.writeMermaid(report, view, io);
  } else {
    if (opts.flow) {
      io.stdout.write(p.renderFlow(report, view));
      const lines = view.component ? p.coverageLines(report) : [];
      if (lines.length > 0) io.stdout.write(lines.join("\n") + "\n");
      writeIncomplete(report, io);
    } else if (opts.dot === undefined && opts.plot === undefined && opts.html === undefined) {
      writeLines(p.treeLines(report, view), io);
      // with prices, the tree ends with what the whole run cost
      if (existsSync(pricesFile(scoutHome(io.env)))) {
        await (await import("./llm_prov_views.ts")).writeTreeCost(report, io);
      }
      writeIncomplete(report, io);
    }
    if (opts.evidence) io.stdout.write(p.renderEvidence(report));
  }
  if (opts.dot !== undefined || opts.plot !== undefined) {
    const dot = p.renderDot(report, view);
    if (opts.dot === "-") io.stdout.write(dot);
    else if (opts.dot !== undefined) await writeFileAtomic(resolve(io.cwd, opts.dot), dot);
    if (opts.plot !== undefined) plot(dot, resolve(io.cwd, opts.plot), format!, io);
  }
  if (opts.html !== undefined) await views!.writeHtml(report, opts.html, view, opts.by, io);
  if (opts.warnings !== false) {
    for (const line of p.warningLines(report)) warn(io, line);
  }
  return 0;
}

/** After a text view's totals: that they miss what the walk could not follow (`complete: false`). */
function writeIncomplete(report: ProvenanceReport, io: Io): void {
  const line = incompleteLine(report);
  if (line !== null) io.stdout.write(line + "\n");
}

/**
 * Writes lines as they are made, ~1 MB at a time (a big store's tree is tens
 * of MB of text: never held whole), collecting what was written now and then.
 */
function writeLines(lines: Iterable<string>, io: Io): void {
  let chunk: string[] = [];
  let chars = 0;
  let written = 0;
  const flush = () => {
    io.stdout.write(chunk.join("\n") + "\n");
    chunk = [];
    chars = 0;
    if (++written % 4 === 0) collectIfGrown();
  };
  for (const line of lines) {
    chunk.push(line);
    chars += line.length + 1;
    if (chars >= 1 << 20) flush();
  }
  if (chunk.length > 0) flush();
}

/** Renders `dot` with Graphviz into a temp file, then writes it to `out` atomically (directories made). */
function plot(dot: string, out: string, format: string, io: Io): void {
  const dir = mkdtempSync(join(tmpdir(), "scout-prov-"));
  try {
    const src = join(dir, "provenance.dot");
    const drawn = join(dir, `provenance.${format}`);
    writeFileSync(src, dot);
    const r = spawnSync("dot", [`-T${format}`, src, "-o", drawn], {
      env: io.env as NodeJS.ProcessEnv,
      encoding: "utf8",
    });
    if (r.error !== undefined) {
      const missing = (r.error as NodeJS.ErrnoException).code === "ENOENT";
      throw new ScoutError(
        missing ? "not_available" : "io",
        missing
          ? "Graphviz 'dot' is not installed (needed for --plot; --dot FILE writes the DOT text)"
          : `Cannot run Graphviz 'dot': ${r.error.message}`,
      );
    }
    if (r.status !== 0) {
      throw new ScoutError(
        "io",
        `Graphviz 'dot' failed (exit ${r.status}) drawing "${out}": ${String(r.stderr).trim()}`,
        { file: out },
      );
    }
    writeFileAtomicSync(out, readFileSync(drawn));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/**
 * Registers `llm prov`.
 *
 * @param llm the `llm` command group
 * @param ctx invocation context
 */
export function registerLlmProv(llm: Command, ctx: CliContext): void {
  const prov = llm.command("prov")
    .description("explain how a chat or job was produced: chats, jobs, agents, tokens")
    .argument("<root>", "a chat file, or a job path (detected by its .info or .files)")
    .option("-c, --component", "per-node direct tokens instead of subtree totals (+ coverage)")
    .option("-f, --flow", "compact flow (producer → consumer) instead of the tree")
    .option("-l, --long", "label nodes with their canonical paths")
    .option("-e, --evidence", "append the per-inference evidence report")
    .option("--dot <file>", "write Graphviz DOT to FILE (- for stdout)")
    .option(
      "-p, --plot <file>",
      "render with Graphviz dot into FILE (.svg, .png or .pdf; written whole, directories made)",
    )
    .option("--json", "print the scout-ai/provenance v1 JSON document instead of text")
    .option(
      "--tools",
      "list every tool call: tool, agent, status, duration, arguments; then who delegated to whom and how it links (+ --json)",
    )
    .option(
      "--by <dims>",
      "tokens, inferences (and cost) per agent, model, endpoint or job, e.g. --by agent,model",
    )
    .option("--mermaid", "print a Mermaid flowchart (renders in GitHub markdown)")
    .option(
      "--html <file>",
      "write one self-contained HTML page: graph, messages, tokens, roll-ups",
    )
    .option(
      "-J, --jobs-dir <dir>",
      "also resolve job references under DIR (repeatable; searched first)",
      collect,
    )
    .addHelpText(
      "after",
      "\nThe tree shows subtree token totals (everything a node reaches, each inference counted\n" +
        "once); -c shows each node's own tokens. Jobs are found through `meta: job=` markers,\n" +
        "delegation receipts (agent_meta), .info dependencies, .files/log/**/*.chat and chat\n" +
        "results, under --jobs-dir, ./var/jobs, $SCOUT_HOME/var/jobs (or $SCOUT_JOBS_DIR) and\n" +
        "~/.rbbt/var/jobs. Nothing is executed. Unreadable evidence is reported on stderr and\n" +
        "never aborts (exit 0); --log 6 hides the warnings, not the tree's, flow's or table's\n" +
        "closing (incomplete: …) line.\n" +
        "One view prints on stdout: the tree, --flow, --by, --mermaid, --dot - or --tools; --json\n" +
        "replaces the tree, flow and evidence text and holds --by's table and --tools' report.\n" +
        "--by groups the deduplicated inferences by agent (society log, delegated job), model,\n" +
        "endpoint or job; records written before model=/endpoint= were kept go in 'unknown'. With\n" +
        "$SCOUT_HOME/etc/prices.yaml (dollars per million tokens per model: input, cached_input,\n" +
        "cache_write, output, reasoning) a cost column is added; cached tokens are priced apart.\n\n" +
        "Examples:\n" +
        "  scout-ai llm prov fixtures/provenance/example/session.chat \\\n" +
        "    --jobs-dir fixtures/provenance/example/jobs\n" +
        "  scout-ai llm prov fixtures/provenance/example/session.chat \\\n" +
        "    --jobs-dir fixtures/provenance/example/jobs --flow --evidence\n" +
        "  scout-ai llm prov fixtures/provenance/example/jobs/Planner/ask/Default_a1b2c3d4e5.chat \\\n" +
        "    --jobs-dir fixtures/provenance/example/jobs -c\n" +
        "  scout-ai llm prov fixtures/provenance/example/session.chat \\\n" +
        "    --jobs-dir fixtures/provenance/example/jobs --plot provenance.svg\n" +
        "  scout-ai llm prov fixtures/provenance/society/plan.chat \\\n" +
        "    --jobs-dir fixtures/provenance/society/jobs    # a recorded multi-agent run\n" +
        "  scout-ai llm prov fixtures/provenance/example/session.chat \\\n" +
        "    --jobs-dir fixtures/provenance/example/jobs --json | jq '.totals.deduplicated_total.tt'\n" +
        "  scout-ai llm prov fixtures/provenance/example/session.chat \\\n" +
        "    --jobs-dir fixtures/provenance/example/jobs --by agent,model\n" +
        "  scout-ai llm prov fixtures/provenance/example/session.chat \\\n" +
        "    --jobs-dir fixtures/provenance/example/jobs --html provenance.html\n" +
        "  scout-ai llm prov fixtures/provenance/example/session.chat \\\n" +
        "    --jobs-dir fixtures/provenance/example/jobs --mermaid > provenance.mmd",
    )
    .action(async (root, o) => {
      ctx.exitCode = await runLlmProv({
        root,
        component: o.component,
        flow: o.flow,
        long: o.long,
        evidence: o.evidence,
        dot: o.dot,
        plot: o.plot,
        json: o.json,
        jobsDirs: o.jobsDir,
        warnings: ctx.logLevel <= 5,
        by: o.by,
        mermaid: o.mermaid,
        html: o.html,
        tools: o.tools,
      }, ctx.io);
    });
  // commander's "missing required argument 'root'" does not say what ROOT is
  const { outputError } = prov.configureOutput();
  prov.configureOutput({
    outputError: (s, write) => outputError!(s.replace(MISSING_ROOT, MISSING_ROOT_TEXT), write),
  });
}
