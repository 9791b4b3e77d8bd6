/**
 * Where relay requests and replies travel (`inference.md` appendix "relay"):
 * a queue directory on this machine (`server: /shared/queue`, for shared file
 * systems) or one on a remote host reached with `ssh` (`server: user@host`;
 * Ruby used `scp`, the remote layout is the same: `~/.scout/var/ask/` for
 * `backend: relay`, `~/.scout/var/query/` for the `relay:` option). Files are
 * written atomically on both kinds (temp name, then rename), so a worker never
 * reads half a request and a client never half a reply.
 *
 * @module
 */
import { execFile } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { ScoutError } from "../errors.ts";
import { writeFileAtomic } from "../util/fs.ts";
import { shellWords } from "../util/shell_words.ts";

/** A queue directory, local or remote. */
export interface RelayTransport {
  /** What to call it in messages (`/dir` or `host:dir`). */
  label: string;
  /** Local transports poll fast; remote ones once a second. */
  local: boolean;
  /** Writes `dir/name` atomically. */
  put(name: string, content: string): Promise<void>;
  /** Reads `dir/name`, or null while it does not exist. */
  get(name: string): Promise<string | null>;
  /** Removes `dir/name` (nothing when it is gone already). */
  remove(name: string): Promise<void>;
}

/**
 * The transport of a `server` setting: an absolute path (or `file:/path`) is
 * a local directory; anything else is an ssh destination (`host`,
 * `user@host`, an alias of `~/.ssh/config`) whose queue is `remoteDir` under
 * the remote home, or the directory given after a colon (`host:/shared/q`;
 * `host:~/q` and `host:~user/q` are under a remote home, as in scp).
 *
 * @param server the `server` setting
 * @param remoteDir queue directory relative to the remote home (`.scout/var/ask`)
 * @param ssh the ssh command and its options (`ssh_command`, `SCOUT_SSH`; default
 *   `ssh`), split into words as a POSIX shell does (quotes, backslashes; no expansion)
 * @returns the transport
 * @throws ScoutError `config` when the ssh command has an unbalanced quote or is empty, or
 *   the ssh host starts with `-` (ssh would take it for an option)
 */
export function relayTransport(server: string, remoteDir: string, ssh = "ssh"): RelayTransport {
  const path = server.startsWith("file:") ? server.slice(5) : server;
  if (isAbsolute(path)) return localTransport(path);
  // `host:dir` names the remote queue directory (scp's syntax)
  const hostDir = /^([^/:]+):(.+)$/.exec(server);
  const host = hostDir ? hostDir[1]! : server;
  if (hostDir) remoteDir = hostDir[2]!;
  if (host.startsWith("-")) {
    // ssh would read it as an option (`-oProxyCommand=…` runs a command): R97-6
    throw new ScoutError(
      "config",
      `Cannot use relay server "${server}": the ssh host "${host}" starts with "-" (give a host name, user@host or an absolute directory)`,
      { server },
    );
  }
  const [cmd, ...args] = sshWords(ssh);
  // `--` ends ssh's options: the host is never read as one
  const run = (script: string, input?: string) =>
    runSsh(cmd!, [...args, "--", host, script], input);
  const q = remotePathWord;
  return {
    label: `${host}:${remoteDir}`,
    local: false,
    put: async (name, content) => {
      const target = `${remoteDir}/${name}`;
      const tmp = `${target}.tmp-${process.pid}-${Date.now()}`;
      const dir = target.slice(0, target.lastIndexOf("/"));
      const r = await run(
        `mkdir -p ${q(dir)} && cat > ${q(tmp)} && mv ${q(tmp)} ${q(target)}`,
        content,
      );
      if (r.code !== 0) throw sshError(host, `write ${target}`, r.stderr);
    },
    get: async (name) => {
      const file = `${remoteDir}/${name}`;
      const r = await run(`if [ -f ${q(file)} ]; then cat ${q(file)}; else exit 3; fi`);
      if (r.code === 3) return null;
      if (r.code !== 0) throw sshError(host, `read ${file}`, r.stderr);
      return r.stdout;
    },
    remove: async (name) => {
      const file = `${remoteDir}/${name}`;
      const r = await run(`rm -f ${q(file)}`);
      if (r.code !== 0) throw sshError(host, `remove ${file}`, r.stderr);
    },
  };
}

/** The queue as a local (or mounted) directory: its files read and written directly. */
function localTransport(dir: string): RelayTransport {
  return {
    label: dir,
    local: true,
    put: (name, content) => writeFileAtomic(join(dir, name), content),
    get: (name) => {
      try {
        return Promise.resolve(readFileSync(join(dir, name), "utf8"));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") return Promise.resolve(null);
        return Promise.reject(e);
      }
    },
    remove: (name) => Promise.resolve(rmSync(join(dir, name), { force: true })),
  };
}

/**
 * A remote path as one word of a POSIX shell script: single-quoted, except a
 * leading `~` or `~user`, which stays bare so the remote shell expands it to
 * the home directory (scp's `host:~/dir`).
 *
 * @param path the remote path
 * @returns the shell word
 *
 * @example
 * ```ts
 * import { remotePathWord } from "./relay_transport.ts";
 * remotePathWord("~/q 2/a.json"); // "~/'q 2/a.json'"
 * remotePathWord("/it's"); // "'/it'\\''s'"
 * ```
 */
export function remotePathWord(path: string): string {
  const q = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  const home = /^(~(?:[A-Za-z0-9_][A-Za-z0-9._-]*)?)(?:\/(.*))?$/s.exec(path);
  if (!home) return q(path);
  return home[2] === undefined ? home[1]! : `${home[1]}/${q(home[2])}`;
}

function sshWords(ssh: string): string[] {
  let words: string[] = [];
  let why = "it names no command";
  try {
    words = shellWords(ssh);
  } catch {
    why = "it has an unbalanced quote";
  }
  if (words.length > 0) return words;
  throw new ScoutError("config", `Cannot use ssh_command / SCOUT_SSH "${ssh}": ${why}`, {
    command: ssh,
  });
}

function sshError(server: string, what: string, stderr: string): ScoutError {
  return new ScoutError(
    "relay",
    `Relay via ssh to "${server}" could not ${what}: ${stderr.trim().split("\n").at(-1) ?? ""}`,
    { server, retryable: true },
  );
}

function runSsh(
  cmd: string,
  args: string[],
  input?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = execFile(cmd, ["-o", "BatchMode=yes", ...args], {
      maxBuffer: 1 << 30,
    }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
      if (err && typeof err.code !== "number") {
        reject(new ScoutError("relay", `Cannot run "${cmd}": ${err.message}`, { command: cmd }));
        return;
      }
      resolve({ code, stdout, stderr });
    });
    if (input !== undefined) child.stdin?.end(input);
    else child.stdin?.end();
  });
}
