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

/**
 * Starts sshd on a free port.
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
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const user = Deno.env.get("USER") ?? new TextDecoder().decode(
    (await new Deno.Command("id", { args: ["-un"], stdout: "piped" }).output()).stdout,
  ).trim();
  await Deno.writeTextFile(
    join(dir, "sshd_config"),
    [
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
    ].join("\n") + "\n",
  );
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
  const destination = `${user}@127.0.0.1`;
  // ready when a login works
  for (let i = 0;; i++) {
    const probe = await new Deno.Command("sh", {
      args: ["-c", `${sshCommand} -o BatchMode=yes ${destination} true`],
      stdout: "null",
      stderr: "null",
    }).output();
    if (probe.success) break;
    if (i > 100) {
      child.kill("SIGTERM");
      const err = new TextDecoder().decode((await child.output()).stderr);
      throw new Error(`sshd did not accept a login: ${err}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
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
