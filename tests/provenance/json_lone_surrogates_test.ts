/**
 * `llm prov --json` stays readable by jq 1.6 when a `.info` or an
 * `agent_meta` receipt holds a lone surrogate (`"\ud800"` in its JSON): the
 * strings that enter the report from them are made well-formed (U+FFFD)
 * where they enter, so `JSON.stringify` never writes a lone `\ud800` (R99-2).
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { runMain } from "../support/cli.ts";
import { tmp, write } from "./support.ts";

/** Runs jq on `text`: its exit code and output. */
async function jq(
  filter: string,
  text: string,
): Promise<{ code: number; out: string; err: string }> {
  const p = new Deno.Command("jq", {
    args: ["-c", filter],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const w = p.stdin.getWriter();
  await w.write(new TextEncoder().encode(text));
  await w.close();
  const o = await p.output();
  const dec = new TextDecoder();
  return { code: o.code, out: dec.decode(o.stdout), err: dec.decode(o.stderr) };
}

Deno.test("--json with lone surrogates in a receipt and a .info is read by jq (R99-2)", async () => {
  await using d = await tmp();
  mkdirSync(join(d.path, "jobs", "X", "t"), { recursive: true });
  write(
    join(d.path, "jobs", "X", "t", "J.info"),
    '{"workflow":"X\\ud800Y","task_name":"t\\udc00","status":"done","type":"chat",' +
      '"dependencies":["X/t/\\ud800"]}',
  );
  write(
    join(d.path, "jobs", "X", "t", "J"),
    "user: a\n\nmeta: pt=1 ct=1 tt=2 inference_id=r model=m\n\nassistant: b\n",
  );
  write(
    join(d.path, "c.chat"),
    'user: q\n\nfunction_call:\n\n{"name":"to\\udfffol","arguments":{},"id":"c\\ud8001"}\n\n' +
      'function_call_output:\n\n{"name":"to\\udfffol","content":"ok","id":"c\\ud8001",' +
      '"agent_meta":[{"role":"meta","content":"pt=1 ct=1 tt=2 inference_id=q model=\\ud800"},' +
      '{"role":"meta\\ud800","content":"x"}]}\n\n' +
      "meta: job=X/t/J\n\nassistant: ok\n",
  );
  const r = await runMain(["llm", "prov", "c.chat", "-J", "jobs", "--json"], {
    cwd: d.path,
    env: { SCOUT_HOME: join(d.path, "home"), NO_COLOR: "1" },
  });
  assert.equal(r.code, 0, r.stderr);
  const all = await jq(".", r.stdout);
  assert.equal(all.code, 0, all.err);
  const job = await jq(
    '.nodes[] | select(.kind == "job") | [.label, .job.workflow, .job.task]',
    r.stdout,
  );
  assert.equal(job.out, '["X\uFFFDY/t\uFFFD J","X\uFFFDY","t\uFFFD"]\n');
  const models = await jq("[.events[].meta.model] | sort", r.stdout);
  assert.equal(models.out, '["m","\uFFFD"]\n');
  const refs = await jq("[.warnings[].reference]", r.stdout);
  assert.equal(refs.code, 0, refs.err);
  assert.ok(refs.out.includes('"X/t/\uFFFD"'), refs.out);
});

Deno.test("--tools --json with lone surrogates in a call's name, id and arguments is read by jq (R99-2)", async () => {
  await using d = await tmp();
  write(
    join(d.path, "c.chat"),
    'user: q\n\nfunction_call:\n\n{"name":"to\\udfffol","arguments":{"q":"a\\ud800b"},' +
      '"id":"c\\ud8001"}\n\nfunction_call_output:\n\n{"name":"to\\udfffol","content":"ok",' +
      '"id":"c\\ud8001"}\n\nassistant: ok\n',
  );
  const r = await runMain(["llm", "prov", "c.chat", "--tools", "--json"], {
    cwd: d.path,
    env: { SCOUT_HOME: join(d.path, "home"), NO_COLOR: "1" },
  });
  assert.equal(r.code, 0, r.stderr);
  const all = await jq(".", r.stdout);
  assert.equal(all.code, 0, all.err);
  const call = await jq(".calls[0] | [.tool, .callId, .arguments]", r.stdout);
  // the arguments are compact JSON text: the lone surrogate stays an escape in it, which jq reads
  assert.equal(call.out.trim(), JSON.stringify(["to\ufffdol", "c\ufffd1", '{"q":"a\\ud800b"}']));
});
