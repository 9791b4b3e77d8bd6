/**
 * A command at a real terminal, as a person runs it: Python's pty, the
 * command its session's leader with the pty as its controlling terminal
 * (`setsid` + `TIOCSCTTY`: a Ctrl-C typed reaches its whole process group, as
 * the terminal's line discipline sends it), stdin, stdout and stderr all on
 * the pty, the window `cols` wide (`TIOCSWINSZ`). The test types bytes once
 * the terminal shows a text, and gets every byte the terminal showed.
 *
 * @module
 */

/** A keystroke sent once the screen shows a text (after the last step's). */
export interface PtyStep {
  /** Text to wait for on the terminal, after the previous step's. */
  after: string;
  /** Bytes typed then: `"\x03"` is Ctrl-C, `"\x04"` Ctrl-D at a line's start. */
  type: string;
}

/** What the terminal showed. */
export interface PtyRun {
  /** The command's exit code (128 + n when a signal ended it, as a shell says). */
  code: number;
  /** Every byte the terminal showed (the command's output and the echo of what was typed). */
  screen: string;
}

const DRIVE = `
import fcntl, json, os, select, struct, subprocess, sys, termios, time
spec = json.loads(sys.argv[1])
master, slave = os.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, spec["cols"], 0, 0))
def controlling():
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
p = subprocess.Popen(spec["argv"], stdin=slave, stdout=slave, stderr=slave,
                     preexec_fn=controlling)
os.close(slave)
out, pos, steps = b"", 0, spec["steps"]
deadline = time.time() + spec["timeout"]
while time.time() < deadline:
    if steps:
        at = out.find(steps[0]["after"].encode(), pos)
        if at >= 0:
            pos = at + len(steps[0]["after"].encode())
            os.write(master, steps.pop(0)["type"].encode())
            continue
    if select.select([master], [], [], 0.05)[0]:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break  # EIO: every process holding the terminal is gone
        if not chunk:
            break
        out += chunk
if p.poll() is None:
    os.killpg(p.pid, 9)
code = p.wait()
sys.stdout.write(json.dumps({"code": 128 - code if code < 0 else code,
                             "screen": out.decode("utf-8", "replace"),
                             "left": [s["after"] for s in steps]}))
`;

/**
 * Runs `argv` at a terminal `cols` wide, typing each step's bytes once the
 * screen shows its text, until every process holding the terminal is gone.
 *
 * @throws Error when a step's text never showed (naming it, with the screen)
 */
export async function atTerminal(
  argv: readonly string[],
  opts: {
    cwd: string;
    env: Record<string, string>;
    cols?: number;
    steps?: PtyStep[];
    timeoutMs?: number;
  },
): Promise<PtyRun> {
  const spec = {
    argv,
    cols: opts.cols ?? 80,
    steps: opts.steps ?? [],
    timeout: (opts.timeoutMs ?? 60_000) / 1000,
  };
  const out = await new Deno.Command("python3", {
    args: ["-c", DRIVE, JSON.stringify(spec)],
    cwd: opts.cwd,
    env: opts.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  if (!out.success) throw new Error(`pty driver failed: ${dec.decode(out.stderr)}`);
  const run = JSON.parse(dec.decode(out.stdout)) as PtyRun & { left: string[] };
  if (run.left.length > 0) {
    throw new Error(`the terminal never showed ${JSON.stringify(run.left[0])}: ${run.screen}`);
  }
  return { code: run.code, screen: run.screen };
}
