/**
 * `-` as stdin for the files `llm ask -s`, `llm ask -t` and `workflow task
 * --deploy-rules` name (R128-7): they looked for a file named `-`
 * (`Schema file not found: "-"`, `Template "-" not found`, Node's ENOENT with
 * the absolute path). Now the deploy rules read stdin (a deploy refuses an
 * input from stdin, so stdin is free there), `-s -` and `-t -` are usage
 * errors saying why (stdin is the question's), a pipe still works, and a
 * missing rules file is named as typed. Real `scout-ai` subprocesses.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runScout, tempDir } from "../support/cli.ts";
import { BAKING, env } from "../workflow/cli_support.ts";
import { standInSlurm } from "../workflow/deploy_fixtures.ts";

Deno.test("llm ask -s - / llm ask -t -: a usage error saying stdin is the question's", async () => {
  await using d = await tempDir();
  const o = { env: env(join(d.path, "home")), cwd: d.path, stdin: '{"type":"object"}' };
  for (
    const [args, flag] of [
      [["llm", "ask", "-s", "-", "a question"], "-s"],
      [["llm", "ask", "-t", "-", "a question"], "-t"],
    ] as const
  ) {
    const r = await runScout([...args], o);
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(
        `^scout-ai: ${flag} -: the \\w+ cannot come from stdin, which is where the question`,
      ),
    );
    assert.ok(r.stderr.includes(`${flag} <(command)`), r.stderr);
  }
});

Deno.test("--deploy-rules -: the rules read from stdin; a pipe still read; a missing file named as typed", async () => {
  await using d = await tempDir();
  const home = join(d.path, "home");
  const bin = standInSlurm(d.path);
  const o = { env: { ...env(home), PATH: `${bin}:${Deno.env.get("PATH")}` }, cwd: d.path };
  const args = ["workflow", "task", BAKING, "cake", "--deploy", "slurm", "--dry-run"];
  const cakeCpus = (script: string) =>
    /# Baking\/cake\/[^\n]*\n(?:[^\n]*\n)*?#SBATCH --cpus-per-task=(\d+)/.exec(script)?.[1];

  const piped = await runScout([...args, "--deploy-rules", "-"], {
    ...o,
    stdin: "Baking:\n  cake: { cpus: 3 }\n",
  });
  assert.equal(piped.code, 0, piped.stderr);
  assert.equal(cakeCpus(piped.stdout), "3");
  const bad = await runScout([...args, "--deploy-rules", "-"], {
    ...o,
    stdin: "Baking:\n  cake: { cpu: 3 }\n",
  });
  assert.equal(bad.code, 1, bad.stderr);
  assert.match(
    bad.stderr,
    /Baking\.cake\.cpu: Unknown key \(did you mean "cpus"\?\).*\(<stdin>:2\)/,
  );

  const fifo = join(d.path, "rules.fifo");
  const mk = await new Deno.Command("mkfifo", { args: [fifo] }).output();
  assert.equal(mk.code, 0);
  const writer = Deno.writeTextFile(fifo, "Baking:\n  cake: { cpus: 4 }\n");
  const fromPipe = await runScout([...args, "--deploy-rules", fifo], o);
  await writer;
  assert.equal(fromPipe.code, 0, fromPipe.stderr);
  assert.equal(cakeCpus(fromPipe.stdout), "4");

  const missing = await runScout([...args, "--deploy-rules", "nope.yaml"], o);
  assert.equal(missing.code, 1, missing.stderr);
  assert.equal(missing.stderr, 'scout-ai: Deploy rules file not found: "nope.yaml"\n');
});
