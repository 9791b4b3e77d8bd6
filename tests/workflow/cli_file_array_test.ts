/**
 * A `file_array` input keeps relative names as given (Ruby's
 * `Task.format_input` maps the elements through `format_input(v, :file)`,
 * which returns them unchanged; only a `file` input becomes absolute), so the
 * job name digests `'data.txt'` and the `.info` records `["data.txt"]` (R85-2).
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { md5hex } from "../../src/util/hash.ts";
import { runMain, runScout, tempDir } from "../support/cli.ts";
import { env, readInfo, userWorkflow } from "./cli_support.ts";

const WF = `export default (api) => api.workflow("Misc", { tasks: {
  misc2: { type: "string", inputs: { files: api.input.arrayOf("file"), one: api.input.file() },
    run: ({ files, one }) => JSON.stringify([files, one]) } } });`;

const RUBY_MD5 = "fd14f95cc8e8396dcacb903dfe096185";

Deno.test("workflow task: file_array elements stay relative in the job name and .info (R85-2)", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Misc", WF);
  writeFileSync(join(d.path, "data.txt"), "hi\n");
  // a real process: the digest sees relative names against the process's directory
  const r = await runScout(["workflow", "task", "Misc", "misc2", "--files", "data.txt"], {
    cwd: d.path,
    env: env(d.path),
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '[["data.txt"],null]\n');
  // From Ruby: Misc.digest_str([["data.txt"], nil]) is "[['data.txt'], nil]" (a relative
  // existing file digests as its quoted name), and the job name's digest is this md5
  assert.equal(md5hex("{inputs=[['data.txt'], nil], dependencies=[]}"), RUBY_MD5);
  const name = "Default_" + RUBY_MD5;
  const path = join(d.path, "var/jobs/Misc/misc2", name);
  assert.deepEqual(readInfo(path)?.inputs, [["data.txt"], null]);
});

Deno.test("workflow task: a file input still becomes absolute (R85-2, the other side)", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Misc", WF);
  writeFileSync(join(d.path, "data.txt"), "hi\n");
  const r = await runMain(["workflow", "task", "Misc", "misc2", "--one", "data.txt"], {
    cwd: d.path,
    env: env(d.path),
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, JSON.stringify([null, join(d.path, "data.txt")]) + "\n");
});
