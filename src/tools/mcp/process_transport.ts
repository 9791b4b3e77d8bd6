/**
 * The stdio transport of an MCP client session: the server runs as a child
 * in its own process group (so a wrapper — `sh -c`, `npx`, `uvx`,
 * `docker run` — and the server it starts end together) and speaks
 * JSON-RPC lines on stdin/stdout. Ending it is awaited: stdin closed, then
 * SIGTERM to the group, then SIGKILL, and the child's exit is waited for, so
 * nothing outlives the run. The SDK's `StdioClientTransport` kills only the
 * direct child and waits on unref()'d timers, so a process exiting meanwhile
 * left its child behind (R76-1, R76-2). A signal interrupting the command
 * ends every server at once the same way, stdin closed and SIGTERM without the
 * gentle wait, SIGKILL after {@link INTERRUPTED_GRACE_MS}: a server running
 * jobs records them aborted, and a stuck one cannot hold the exit (R91-5).
 * Groups still running when the process exits are killed from an `exit`
 * hook (the last resort: a second signal exits at once).
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  deserializeMessage,
  serializeMessage,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
} from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { groupGone, GROUPS, signalGroup as signal, within } from "../../util/process_group.ts";
import { onInterrupt } from "../../util/interrupt_hooks.ts";
import { clipEnd } from "../../util/clip.ts";

/** How the server process is started. */
export interface ProcessTransportOptions {
  /** Program. */
  command: string;
  /** Arguments. */
  args: string[];
  /** The child's whole environment. */
  env: Record<string, string>;
  /** Working directory. */
  cwd?: string;
  /** How long each step of ending waits before the next, in ms (default 2000). */
  graceMs?: number;
}

/** The largest message accepted from a server, in bytes (the SDK's stdio limit). */
export const MCP_MAX_MESSAGE_BYTES: number = STDIO_DEFAULT_MAX_BUFFER_SIZE;

/**
 * Unparsable lines (or their bytes) a server may print before its first
 * readable message; past either the server is given up on (R88-1).
 */
export const MCP_MAX_GARBAGE_LINES = 1000;
/** See {@link MCP_MAX_GARBAGE_LINES}. */
export const MCP_MAX_GARBAGE_BYTES: number = 1024 * 1024;

/** A line that is not a JSON-RPC message, with its text. */
class UnreadableLine extends Error {
  constructor(readonly line: string, cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

/**
 * The SDK's `ReadBuffer`, but an unparsable line's error carries the line
 * (to name what a server printed).
 */
class LineBuffer {
  private buffer: Buffer | undefined;

  append(chunk: Buffer): void {
    const size = (this.buffer?.length ?? 0) + chunk.length;
    if (size > MCP_MAX_MESSAGE_BYTES) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${MCP_MAX_MESSAGE_BYTES} bytes`);
    }
    this.buffer = this.buffer ? Buffer.concat([this.buffer, chunk]) : chunk;
  }

  readMessage(): JSONRPCMessage | null {
    const index = this.buffer?.indexOf("\n") ?? -1;
    if (!this.buffer || index === -1) return null;
    const line = this.buffer.toString("utf8", 0, index).replace(/\r$/, "");
    this.buffer = this.buffer.subarray(index + 1);
    try {
      return deserializeMessage(line);
    } catch (e) {
      throw new UnreadableLine(line, e);
    }
  }

  clear(): void {
    this.buffer = undefined;
  }
}

/** Process groups (or pids) started and not yet ended. */
const running = new Set<number>();
/** How each running server is ended at once, by its pid. */
const terminators = new Map<number, () => void>();
let exitHooked = false;
/** Set once a signal interrupted the command: the grace steps are short. */
let interrupted = false;

/**
 * Each step's wait of a server's end after a signal interrupted the command:
 * its SIGTERM and group waits stay within ~2 s, then SIGKILL.
 */
export const INTERRUPTED_GRACE_MS = 1_000;

function track(pid: number, terminate: () => void): void {
  running.add(pid);
  terminators.set(pid, terminate);
  if (exitHooked) return;
  exitHooked = true;
  process.on("exit", () => {
    for (const p of running) signal(p, "SIGKILL");
  });
  onInterrupt(() => {
    interrupted = true;
    for (const end of [...terminators.values()]) end();
  });
}

/** An MCP stdio client transport over a child in its own process group. */
export class ProcessTransport implements Transport {
  /** Called once when the transport has ended. */
  onclose?: () => void;
  /** Called on errors (unparsable lines, broken pipes). */
  onerror?: (error: Error) => void;
  /** Called with each message from the server. */
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  /** Set when a message from the server exceeded {@link MCP_MAX_MESSAGE_BYTES}. */
  overflowed = false;
  /** Why the transport gave up on the server (its output unreadable), or null. */
  failure: string | null = null;
  /** True once the server sent a readable message. */
  private answered = false;
  /** Unparsable lines before the first readable message. */
  private garbage = 0;
  private garbageBytes = 0;
  private firstGarbage: string | null = null;
  private readonly opts: ProcessTransportOptions;
  private readonly buffer = new LineBuffer();
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private ending: Promise<void> | null = null;
  private hurry: () => void = () => {};
  /** Settles when {@link terminate} cuts short a gentle end. */
  private readonly hurried = new Promise<void>((r) => (this.hurry = r));

  /**
   * A transport; nothing starts until {@link start}.
   *
   * @param opts command, arguments, environment, working directory
   */
  constructor(opts: ProcessTransportOptions) {
    this.opts = opts;
  }

  /** The child's pid (also its process group), once started. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /**
   * Starts the child.
   *
   * @returns when the child runs
   * @throws Error when it cannot be started
   */
  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.opts.command, this.opts.args, {
        env: this.opts.env,
        ...(this.opts.cwd ? { cwd: this.opts.cwd } : {}),
        stdio: ["pipe", "pipe", "inherit"],
        detached: GROUPS,
        windowsHide: true,
      });
      this.child = child;
      this.exited = new Promise((r) => {
        child.once("exit", () => r());
        child.once("error", () => {
          if (child.pid === undefined) r();
        });
      });
      child.once("error", (e) => {
        if (child.pid === undefined) reject(e);
        else this.onerror?.(e);
      });
      child.once("spawn", () => {
        track(child.pid!, () => void this.terminate());
        resolve();
      });
      // the server died (or was stopped): end its group and tell the client
      child.once("exit", () => void this.close());
      child.stdin?.on("error", (e) => this.onerror?.(e));
      child.stdout?.on("error", (e) => this.onerror?.(e));
      child.stdout?.on("data", (chunk: Buffer) => this.receive(chunk));
    });
  }

  private receive(chunk: Buffer): void {
    const stdout = this.child?.stdout;
    if (this.failure) return;
    try {
      this.buffer.append(chunk);
    } catch (e) {
      // the rest of that message would be read as garbage: stop the server
      this.overflowed = true;
      this.onerror?.(e as Error);
      void this.terminate();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (e) {
        this.onerror?.(e as Error);
        if (this.unreadable(e)) return;
        continue;
      }
      if (message === null) break;
      this.answered = true;
      this.onmessage?.(message);
    }
    // Yield to the event loop between chunks: a server that never stops
    // writing must not starve timers (the start timeout) and signal handlers
    // (Bun delivers a busy pipe's chunks back to back, R88-1).
    if (stdout && !this.ending) {
      stdout.pause();
      setImmediate(() => {
        if (!this.ending) stdout.resume();
      });
    }
  }

  /**
   * Counts an unparsable line before the server's first message; past
   * {@link MCP_MAX_GARBAGE_LINES} the server is given up on (R88-1).
   *
   * @returns true when the server was stopped
   */
  private unreadable(e: unknown): boolean {
    if (this.answered) return false;
    const line = e instanceof UnreadableLine ? e.line : "";
    this.garbage++;
    this.garbageBytes += line.length + 1;
    this.firstGarbage ??= line;
    if (this.garbage < MCP_MAX_GARBAGE_LINES && this.garbageBytes < MCP_MAX_GARBAGE_BYTES) {
      return false;
    }
    const first = this.firstGarbage ?? "";
    const cut = clipEnd(first, 80);
    this.failure = `it printed ${this.garbage} lines that are not JSON-RPC messages ` +
      `before answering (the first: ${JSON.stringify(cut)}); the server was stopped`;
    this.onerror?.(new Error(this.failure));
    void this.terminate();
    return true;
  }

  /**
   * Sends a message.
   *
   * @param message the JSON-RPC message
   * @returns when written (or buffered)
   */
  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.ending) return Promise.reject(new Error("Not connected"));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /** Ends the server: stdin closed first, so it can stop by itself. Never throws. */
  close(): Promise<void> {
    return this.ending ??= this.end(true);
  }

  /** Ends the server at once (SIGTERM, then SIGKILL), e.g. after a failed start. */
  terminate(): Promise<void> {
    this.hurry();
    return this.ending ??= this.end(false);
  }

  private async end(gently: boolean): Promise<void> {
    const child = this.child;
    const pid = child?.pid;
    if (child && pid !== undefined) {
      terminators.delete(pid);
      const given = this.opts.graceMs ?? 2000;
      const grace = () => interrupted ? Math.min(given, INTERRUPTED_GRACE_MS) : given;
      const exited = () => child.exitCode !== null || child.signalCode !== null;
      child.stdin?.end();
      if (gently && !exited()) await within(Promise.race([this.exited, this.hurried]), grace());
      // the whole group: what a wrapper started goes too
      signal(pid, "SIGTERM");
      const done = exited() || await within(this.exited, grace());
      if (!done || (GROUPS && !(await groupGone(pid, grace())))) signal(pid, "SIGKILL");
      await within(this.exited, grace());
      running.delete(pid);
      child.stdout?.destroy();
      child.stdin?.destroy();
    }
    this.buffer.clear();
    this.onclose?.();
  }
}
