/**
 * `backend: relay` over ssh, end to end: a real OpenSSH server on 127.0.0.1
 * (throw-away keys), the client writing the request through ssh into the
 * remote queue, a real `llm process` worker (the built binary) answering from
 * the loopback provider, the reply read back through ssh.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ask } from "../../src/llm/ask.ts";
import { newSession } from "../../src/llm/meta_record.ts";
import { BINARY, buildBinary, runBinary, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { sshdPath, startSshd } from "../support/sshd.ts";

Deno.test("relay over ssh: request and reply travel through a real sshd; the binary's worker answers", async () => {
  assert.ok(sshdPath(), "sshd is not installed (openssh-server): tools/setup installs it");
  await buildBinary();
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  await using sshd = await startSshd();
  const queue = join(dir.path, "remote-queue");
  const home = join(dir.path, "worker-home");
  await Deno.mkdir(join(home, "etc", "AI"), { recursive: true });
  await Deno.writeTextFile(
    join(home, "etc", "AI", "loop.yaml"),
    `backend: openai\nurl: ${srv.url}\nmodel: remote-model\n`,
  );
  srv.script({ text: "Relayed over ssh." });
  const worker = new Deno.Command(BINARY, {
    args: ["llm", "process", "--interval", "0.05", queue],
    env: { SCOUT_HOME: home, LLM_ENDPOINT: "loop", OPENAI_API_KEY: "sk-remote", NO_COLOR: "1" },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    const r = await ask([{ role: "user", content: "Are you there?" }], {
      backend: "relay",
      server: `${sshd.destination}:${queue}`,
      ssh_command: sshd.sshCommand,
      persist: false,
      request_timeout: 30,
      env: { SCOUT_HOME: join(dir.path, "client-home") },
      config: { entries: [] },
      session: newSession(),
    });
    assert.equal(r.text, "Relayed over ssh.");
    assert.equal(srv.requests[0]!.body.model, "remote-model");
  } finally {
    worker.kill("SIGTERM");
    const out = await worker.output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  }
  // the binary client, configured by environment, through the same sshd and worker queue
  srv.script({ text: "Binary client too." });
  const worker2 = new Deno.Command(BINARY, {
    args: ["llm", "process", "--interval", "0.05", queue],
    env: { SCOUT_HOME: home, LLM_ENDPOINT: "loop", OPENAI_API_KEY: "sk-remote", NO_COLOR: "1" },
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    const c = await runBinary(["llm", "ask", "-b", "relay", "--no-cache", "Hello again"], {
      env: {
        SCOUT_HOME: join(dir.path, "client-home"),
        SCOUT_RELAY_SERVER: `${sshd.destination}:${queue}`,
        SCOUT_SSH: sshd.sshCommand,
      },
      cwd: dir.path,
    });
    assert.equal(c.code, 0, c.stderr);
    assert.equal(c.stdout, "Binary client too.\n");
  } finally {
    worker2.kill("SIGTERM");
    await worker2.status;
  }
});

Deno.test("relay over ssh: an unreachable host is a clear error naming it", async () => {
  await using dir = await tempDir();
  await assert.rejects(
    () =>
      ask([{ role: "user", content: "x" }], {
        backend: "relay",
        server: "nobody@127.0.0.1:/tmp/q",
        ssh_command: "ssh -p 1 -o ConnectTimeout=2 -o StrictHostKeyChecking=no",
        persist: false,
        max_retries: 0,
        env: { SCOUT_HOME: join(dir.path, "home") },
        config: { entries: [] },
        session: newSession(),
      }),
    /Relay via ssh to "nobody@127.0.0.1" could not read \/tmp\/q\/reply\/[0-9a-f]{32}\.json/,
  );
});

/** A worker-side Scout home whose endpoint `loop` asks the loopback provider. */
async function workerHome(home: string, url: string): Promise<void> {
  await Deno.mkdir(join(home, "etc", "AI"), { recursive: true });
  await Deno.writeTextFile(
    join(home, "etc", "AI", "loop.yaml"),
    `backend: openai\nurl: ${url}\nmodel: remote-model\n`,
  );
}

/** `llm process <queue>` of the built binary, answering with `home`'s endpoint. */
function startWorker(queue: string, home: string): Deno.ChildProcess {
  return new Deno.Command(BINARY, {
    args: ["llm", "process", "--interval", "0.05", queue],
    env: { SCOUT_HOME: home, LLM_ENDPOINT: "loop", OPENAI_API_KEY: "sk-remote", NO_COLOR: "1" },
    stdout: "null",
    stderr: "null",
  }).spawn();
}

Deno.test("relay over ssh: server host:~/dir is the queue dir under the remote home, as in scp (R79-11)", async () => {
  assert.ok(sshdPath(), "sshd is not installed (openssh-server): tools/setup installs it");
  await buildBinary();
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  const remoteHome = join(dir.path, "remote home");
  await Deno.mkdir(remoteHome);
  await using sshd = await startSshd({ home: remoteHome });
  await workerHome(join(dir.path, "worker-home"), srv.url);
  srv.script({ text: "Found under the home." });
  // the worker watches `~/q2` as the shell on the remote side expands it
  const worker = startWorker(join(remoteHome, "q2"), join(dir.path, "worker-home"));
  try {
    const r = await ask([{ role: "user", content: "Hello tilde" }], {
      backend: "relay",
      server: `${sshd.destination}:~/q2`,
      ssh_command: sshd.sshCommand,
      persist: false,
      request_timeout: 15,
      env: { SCOUT_HOME: join(dir.path, "client-home") },
      config: { entries: [] },
      session: newSession(),
    });
    assert.equal(r.text, "Found under the home.");
  } finally {
    worker.kill("SIGTERM");
    await worker.status;
  }
  assert.deepEqual([...Deno.readDirSync(remoteHome)].map((e) => e.name), ["q2"]);
});

Deno.test("relay over ssh: SCOUT_SSH is split as a shell splits words: a key path with a space and a quoted ProxyCommand (R79-12)", async () => {
  assert.ok(sshdPath(), "sshd is not installed (openssh-server): tools/setup installs it");
  await buildBinary();
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  await using sshd = await startSshd();
  const keyDir = join(sshd.dir, "key dir");
  await Deno.mkdir(keyDir);
  const key = join(keyDir, "client key");
  await Deno.copyFile(join(sshd.dir, "client_key"), key);
  await Deno.chmod(key, 0o600);
  const port = /-p (\d+)/.exec(sshd.sshCommand)![1]!;
  // port 1 is closed: the login works only through the ProxyCommand, which reaches sshd's port
  const opts = `-p 1 -i "${key}" -o StrictHostKeyChecking=no ` +
    `-o "UserKnownHostsFile=${join(sshd.dir, "known_hosts")}" -o LogLevel=ERROR`;
  // the ProxyCommand's own words are quoted inside it (ssh runs it with a shell)
  const proxy = `ssh -p ${port} -i '${key}' -o StrictHostKeyChecking=no ` +
    `-o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -W 127.0.0.1:${port} ${sshd.destination}`;
  const queue = join(dir.path, "queue");
  await workerHome(join(dir.path, "worker-home"), srv.url);
  srv.script({ text: "Through the bastion." });
  const worker = startWorker(queue, join(dir.path, "worker-home"));
  try {
    const c = await runBinary(["llm", "ask", "-b", "relay", "--no-cache", "Hello proxy"], {
      env: {
        SCOUT_HOME: join(dir.path, "client-home"),
        SCOUT_RELAY_SERVER: `${sshd.destination}:${queue}`,
        SCOUT_SSH: `ssh ${opts} -o "ProxyCommand=${proxy}"`,
      },
      cwd: dir.path,
    });
    assert.equal(c.code, 0, c.stderr);
    assert.equal(c.stdout, "Through the bastion.\n");
  } finally {
    worker.kill("SIGTERM");
    await worker.status;
  }
});
