/**
 * MCP stdio servers as real processes that misbehave: one that never answers
 * `initialize` is bounded by the configured timeout and by the run's abort
 * signal and ended at once (R76-1); one behind a wrapper (`sh -c '…; true'`,
 * the server a grandchild) that ignores stdin EOF is ended with its wrapper
 * (R76-2); one whose wrapper leaves an orphan that becomes a zombie nobody
 * reaps is closed without waiting out the grace period (R78-4). Liveness is
 * read from pid files (zombies count as ended).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assembleTools } from "../../src/tools/assemble.ts";
import { mcpToolResolver } from "../../src/tools/mcp/resolver.ts";
import { emptyConfig, parseConfigText } from "../../src/config/store.ts";
import { DENO, ROOT, tempDir } from "../support/cli.ts";
import { alive, recordedPids as pids, running } from "../support/mcp_server.ts";
import { waitFor } from "../support/wait.ts";
import type { Message } from "../../src/chat/types.ts";

const SERVER = join(ROOT, "tests/support/mcp_server.ts");

function mcpLine(...tokens: string[]): Message[] {
  return [{ role: "mcp", content: tokens.join(" ") }, { role: "user", content: "hi" }];
}

/** A server that starts, records its pid and never answers (nor exits on EOF). */
async function mute(dir: string): Promise<string> {
  const script = join(dir, "mute.ts");
  await Deno.writeTextFile(
    script,
    `Deno.writeTextFileSync(Deno.env.get("MCP_PID_FILE")!, Deno.pid + "\\n", { append: true });
setInterval(() => {}, 1000);
`,
  );
  return `${DENO} run -A ${script}`;
}

/** Waits until the pid file names `n` processes. */
async function started(file: string, n = 1): Promise<number[]> {
  const until = Date.now() + 20_000;
  while ((await pids(file)).length < n && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
  }
  return await pids(file);
}

/** `p`, or "late" when it has not settled within `ms`. */
function settled<T>(p: Promise<T>, ms: number): Promise<T | "late"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<"late">((r) => (timer = setTimeout(() => r("late"), ms))),
  ]);
}

function killAll(list: number[]): void {
  for (const pid of list) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch { /* gone */ }
  }
}

Deno.test("mcp (R76-1): a server that never answers initialize is bounded by the timeout and ended before the warning", async () => {
  await using dir = await tempDir();
  const pidFile = join(dir.path, "pids");
  const config = emptyConfig();
  config.entries.push(...parseConfigText("timeout 1 mcp"));
  const warnings: string[] = [];
  const resolver = mcpToolResolver({
    env: { ...Deno.env.toObject(), MCP_PID_FILE: pidFile },
    config,
    warn: (m) => warnings.push(m),
  });
  try {
    const line = mcpLine("stdio", `'${await mute(dir.path)}'`);
    const t0 = performance.now();
    const out = await settled(assembleTools(line, new Map(), resolver), 15_000);
    assert.notEqual(out, "late", "the configured timeout bounds the start");
    assert.ok(performance.now() - t0 < 10_000);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /cannot start or connect: .*timed out/i);
    const [pid] = await pids(pidFile);
    assert.ok(pid);
    assert.equal(running(pid), false, "the child is ended before the run goes on");
  } finally {
    await resolver.close();
    killAll(await pids(pidFile));
  }
});

Deno.test("mcp (R76-1): the run's abort signal ends a start that waits for initialize", async () => {
  await using dir = await tempDir();
  const pidFile = join(dir.path, "pids");
  const warnings: string[] = [];
  const resolver = mcpToolResolver({
    env: { ...Deno.env.toObject(), MCP_PID_FILE: pidFile },
    warn: (m) => warnings.push(m),
  });
  const ac = new AbortController();
  try {
    const line = mcpLine("stdio", `'${await mute(dir.path)}'`);
    const pending = assembleTools(line, new Map(), resolver, { signal: ac.signal });
    const [pid] = await started(pidFile);
    assert.ok(pid && running(pid));
    ac.abort(new DOMException("Interrupted", "AbortError"));
    const out = await settled(pending.then(() => "resolved", (e) => e as Error), 10_000);
    assert.notEqual(out, "late", "the abort ends the wait");
    assert.ok(out instanceof Error && /Interrupted/.test(out.message), String(out));
    assert.deepEqual(warnings, [], "an interrupted start is no server failure");
    assert.equal(running(pid), false, "the child is ended");
  } finally {
    await resolver.close();
    killAll(await pids(pidFile));
  }
});

Deno.test({
  name: "running(): a zombie has ended, though this process (-P=test) cannot read /proc itself",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    // `sleep 300`'s parent becomes `sleep 301`, which never reaps it: killed, it stays a zombie
    const parent = new Deno.Command("sh", {
      args: ["-c", "sleep 300 & echo $!; exec sleep 301"],
      stdout: "piped",
    }).spawn();
    const reader = parent.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const child = Number((await reader.read()).value);
    try {
      assert.ok(running(child), "a sleeping child runs");
      Deno.kill(child, "SIGKILL");
      await waitFor(() => !running(child), 10_000);
      assert.equal(running(child), false, "the zombie has ended");
      assert.equal(alive(child), true, "unreaped, it still answers signals");
    } finally {
      parent.kill("SIGKILL");
      await reader.cancel();
      await parent.status;
    }
  },
});

Deno.test("mcp (R76-2): a server behind a wrapper that ignores EOF ends with the session", async () => {
  await using dir = await tempDir();
  const pidFile = join(dir.path, "pids");
  const wrapperPid = join(dir.path, "wrapper");
  // `; true` keeps sh from exec'ing: the server is its child, our grandchild
  const command = `sh -c 'echo $$ > ${wrapperPid}; ${DENO} run -A ${SERVER} --linger; true'`;
  const resolver = mcpToolResolver({ env: { ...Deno.env.toObject(), MCP_PID_FILE: pidFile } });
  let all: number[] = [];
  try {
    const { registry } = await assembleTools(
      mcpLine("stdio", JSON.stringify(command), "echo"),
      new Map(),
      resolver,
    );
    assert.deepEqual([...registry.keys()], ["echo"]);
    all = [...await pids(pidFile), ...await pids(wrapperPid)];
    assert.equal(all.length, 2);
    for (const pid of all) assert.ok(running(pid));
    const t0 = performance.now();
    await resolver.close();
    assert.ok(performance.now() - t0 < 8_000, "close ends in time");
    // ended, not yet reaped: its parent (the orphaned server's a new one) may reap it late
    for (const pid of all) {
      await waitFor(() => !running(pid), 10_000);
      assert.equal(running(pid), false, `process ${pid} ended with the session`);
    }
  } finally {
    await resolver.close();
    killAll(all);
  }
});

Deno.test({
  name:
    "mcp (R78-4): a group left with only zombies counts as gone: close does not wait out the grace",
  // the zombie check reads Linux /proc; elsewhere the group's signals alone tell
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using dir = await tempDir();
    const wrapper = join(dir.path, "wrapper");
    const bg = join(dir.path, "bg");
    const holder = join(dir.path, "holder");
    // `sleep 301 &` in the server's group becomes a zombie when the group is
    // ended, and nobody reaps it: its parent (the holder) has moved to its own
    // session and never waits, as PID 1 in a container without an init
    // (`sh -c 'sleep 301 & cat >/dev/null'`, its orphan left to such a PID 1)
    const hold =
      `exec setsid sh -c 'echo $$ > ${holder}; exec sleep 302' </dev/null >/dev/null 2>&1`;
    const script = `echo $$ > ${wrapper}; (sleep 301 & echo $! > ${bg}; ${hold}) & cat >/dev/null`;
    const driver = join(ROOT, "tests/support/mcp_close.ts");
    const run = new Deno.Command(DENO, {
      args: ["run", "-A", driver, "20000", script, wrapper, bg, holder],
      stdout: "piped",
      stderr: "inherit",
    });
    try {
      const out = await run.output();
      assert.ok(out.success, "the driver ran");
      const report = JSON.parse(new TextDecoder().decode(out.stdout)) as {
        took: number;
        pids: Record<string, number>;
        running: number[];
      };
      const [w, b, h] = [wrapper, bg, holder].map((f) => report.pids[f]);
      assert.ok(w && b && h, JSON.stringify(report));
      // well under the grace: a loaded machine's close took 3 s where it takes 0.2 s
      assert.ok(report.took < 10_000, `close took ${report.took} ms (grace 20000 ms)`);
      assert.deepEqual(report.running, [h], "only the holder (outside the group) runs on");
    } finally {
      killAll((await Promise.all([wrapper, bg, holder].map(pids))).flat());
    }
  },
});
