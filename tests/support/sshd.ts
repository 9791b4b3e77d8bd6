/**
 * A throw-away OpenSSH server on 127.0.0.1 for the relay tests: its own host
 * key and client key in a temp dir, key login for the current user only,
 * stopped by PID when disposed. Needs Debian's `openssh-server`
 * (`tools/setup` installs it).
 */
import { join } from "node:path";

/** A running sshd and the ssh command line that reaches it. */
export interface Sshd extends AsyncDisposable {
  /** `ssh -p … -i … -o …` (for `ssh_command` / `SCOUT_SSH`). */
  sshCommand: string;
  /** `user@127.0.0.1`. */
  destination: string;
  /** The temp dir holding keys, config and logs. */
  dir: string;
}

/** Path of sshd, or null when it is not installed. */
export function sshdPath(): string | null {
  for (const p of ["/usr/sbin/sshd", "/usr/bin/sshd"]) {
    try {
      if (Deno.statSync(p).isFile) return p;
    } catch { /* next */ }
  }
  return null;
}

/** A single-quoted POSIX shell word. */
function q(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

async function run(cmd: string, args: string[]): Promise<void> {
  const out = await new Deno.Command(cmd, { args, stdout: "null", stderr: "piped" }).output();
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

/** Options of {@link startSshd}. */
export interface SshdOptions {
  /**
   * A home directory for the sessions (instead of the user's own): each
   * session starts there with `HOME` set to it, as for a user whose home it
   * is, so tests can use `~` on the remote side without touching the real home.
   */
  home?: string;
}

/** `sshd_config` for a server on `port` with the keys of `dir`. */
function config(dir: string, port: number, user: string, opts: SshdOptions): string {
  return [
    `Port ${port}`,
    "ListenAddress 127.0.0.1",
    `HostKey ${join(dir, "host_key")}`,
    `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
    `PidFile ${join(dir, "sshd.pid")}`,
    "PasswordAuthentication no",
    "KbdInteractiveAuthentication no",
    "PubkeyAuthentication yes",
    "PermitRootLogin prohibit-password",
    "StrictModes no",
    "UsePAM no",
    `AllowUsers ${user}`,
    ...(opts.home === undefined ? [] : [
      `ForceCommand cd ${q(opts.home)} && HOME=${
        q(opts.home)
      } && export HOME && eval "$SSH_ORIGINAL_COMMAND"`,
    ]),
  ].join("\n") + "\n";
}

/**
 * Waits (at most 60 s) until a login works: null then, else what sshd said
 * (it is stopped), at once when it has exited — a probe then cut short, as
 * whatever took the port may never answer it.
 */
async function loginWorks(
  child: Deno.ChildProcess,
  sshCommand: string,
  destination: string,
): Promise<string | null> {
  const exited = child.status.then(() => "exited" as const);
  const until = Date.now() + 60_000;
  for (;;) {
    const probe = new Deno.Command("sh", {
      args: ["-c", `exec ${sshCommand} -o BatchMode=yes -o ConnectTimeout=20 ${destination} true`],
      stdout: "null",
      stderr: "null",
    }).spawn();
    const first = await Promise.race([probe.status, exited]);
    if (first !== "exited" && first.success) return null;
    if (first === "exited" || Date.now() > until) {
      try {
        probe.kill("SIGKILL");
      } catch { /* ended */ }
      await probe.status;
      try {
        child.kill("SIGTERM");
      } catch { /* gone */ }
      return new TextDecoder().decode((await child.output()).stderr);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Starts sshd on a free port (another one when something took the port
 * between its choice and sshd's bind).
 *
 * @param opts a home directory for the sessions
 * @returns the server (`await using` stops it)
 */
export async function startSshd(opts: SshdOptions = {}): Promise<Sshd> {
  const sshd = sshdPath();
  if (!sshd) {
    throw new Error("sshd is not installed (Debian package openssh-server; run tools/setup)");
  }
  const dir = await Deno.makeTempDir({ prefix: "scout-sshd-" });
  await run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "host_key")]);
  await run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "client_key")]);
  await Deno.copyFile(join(dir, "client_key.pub"), join(dir, "authorized_keys"));
  await Deno.mkdir("/run/sshd", { recursive: true }).catch(() => {});
  const user = Deno.env.get("USER") ?? new TextDecoder().decode(
    (await new Deno.Command("id", { args: ["-un"], stdout: "piped" }).output()).stdout,
  ).trim();
  const destination = `${user}@127.0.0.1`;
  for (let attempt = 1;; attempt++) {
    // a free port, closed and given to sshd: another process may bind it in between
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    await Deno.writeTextFile(join(dir, "sshd_config"), config(dir, port, user, opts));
    const child = new Deno.Command(sshd, {
      args: ["-D", "-e", "-f", join(dir, "sshd_config")],
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const sshCommand = [
      "ssh",
      `-p ${port}`,
      `-i ${join(dir, "client_key")}`,
      "-o StrictHostKeyChecking=no",
      `-o UserKnownHostsFile=${join(dir, "known_hosts")}`,
      "-o LogLevel=ERROR",
    ].join(" ");
    const failed = await loginWorks(child, sshCommand, destination);
    if (failed === null) return serverOf(child, sshCommand, destination, dir);
    if (attempt < 5 && /Address already in use|Cannot bind/i.test(failed)) continue;
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw new Error(`sshd did not accept a login: ${failed}`);
  }
}

/** The running sshd, stopped by PID and its dir removed when disposed. */
function serverOf(
  child: Deno.ChildProcess,
  sshCommand: string,
  destination: string,
  dir: string,
): Sshd {
  return {
    sshCommand,
    destination,
    dir,
    [Symbol.asyncDispose]: async () => {
      try {
        child.kill("SIGTERM");
      } catch { /* gone */ }
      await child.stderr.cancel().catch(() => {});
      await child.status;
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}
