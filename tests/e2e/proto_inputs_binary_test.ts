/**
 * Inputs named like Object.prototype members in the binary (Bun) as from
 * source (Deno) (R112-5 follow-up). Bun keeps Object.prototype's `__proto__`
 * accessor, which Deno drops: there an input `__proto__` not given read as
 * Object.prototype ("expects string, got an object") and one given was
 * assigned as the prototype of the inputs, its value lost. Through
 * `workflow task` and a model's call of the workflow tool, given and not,
 * both runtimes answer the same values, name the same jobs and record the
 * inputs in the `.info`.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildBinary, type CliResult, runBinary, runScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import {
  PROTO_ARGS,
  PROTO_GIVEN,
  PROTO_NONE,
  protoWorkflowText,
} from "../support/proto_workflow.ts";
import { userWorkflow } from "../workflow/cli_support.ts";

type Run = (args: string[], opts: { env: Record<string, string>; cwd: string }) => Promise<
  CliResult
>;
const RUNS: [string, Run][] = [["binary", runBinary], ["source", runScout]];

/** A fresh home `<dir>/<name>` with the workflow, and its env. */
function home(dir: string, name: string) {
  const path = join(dir, name);
  userWorkflow(path, "Proto", protoWorkflowText("Proto"));
  const env = { SCOUT_HOME: path, HOME: path, NO_COLOR: "1", OPENAI_API_KEY: "sk-test" };
  return { path, env };
}

Deno.test("binary and source: workflow task with inputs called __proto__, toString… given or not", async () => {
  await buildBinary();
  await using d = await tempDir();
  const seen: string[] = [];
  for (const [name, run] of RUNS) {
    const h = home(d.path, name);
    const task = async (args: string[]) => {
      const r = await run(["workflow", "task", "Proto", "t", "--json", ...args], {
        env: h.env,
        cwd: h.path,
      });
      assert.equal(r.code, 0, `${name}: ${r.stderr}`);
      return JSON.parse(r.stdout) as { path: string; shortPath: string; result: unknown };
    };
    // before: Input "toString" of Proto/t expects string, got function toString()…; with that
    // fixed alone, the binary lost a given `__proto__` (set as the prototype of the parsed
    // arguments, of the inputs) and its `.info` did not record it
    const none = await task([]);
    assert.deepEqual(none.result, PROTO_NONE, name);
    const given = await task(PROTO_ARGS);
    assert.deepEqual(given.result, PROTO_GIVEN, name);
    const info = JSON.parse(readFileSync(given.path + ".info", "utf8"));
    assert.equal(info.provided_inputs["__proto__"], '{"polluted":true}', name);
    assert.deepEqual(info.inputs, ["a", { polluted: true }, 2], name);
    const depInfo = JSON.parse(readFileSync(info.dependencies[0] + ".info", "utf8"));
    assert.deepEqual(depInfo.input_names, ["toString", "constructor", "valueOf", "__proto__"]);
    assert.deepEqual(depInfo.inputs, ["a", "c", "w", { polluted: true }], name);
    seen.push(`${none.shortPath} ${given.shortPath} ${depInfo.provided_inputs["__proto__"]}`);
    const help = await run(["workflow", "task", "Proto", "t", "--help"], {
      env: h.env,
      cwd: h.path,
    });
    assert.match(help.stdout, /\n {2}--__proto__ <json>\n/, name);
  }
  assert.equal(seen[0], seen[1]);
});

Deno.test("binary and source: a model's call of a workflow tool with inputs called __proto__, toString…", async () => {
  await buildBinary();
  await using d = await tempDir();
  await using srv = await startProviderServer();
  for (const [name, run] of RUNS) {
    const h = home(d.path, name);
    await Deno.writeTextFile(join(h.path, "q.chat"), "tool: Proto t\n\nuser:\n\nRun it twice\n");
    srv.script(
      { toolCalls: [{ name: "t", arguments: {}, id: "call_1" }] },
      {
        toolCalls: [{
          name: "t",
          arguments: {
            toString: "a",
            ["__proto__"]: { polluted: true },
            hasOwnProperty: 2,
            constructor: "c",
            valueOf: "w",
          },
          id: "call_2",
        }],
      },
      { text: "Done." },
    );
    const from = srv.requests.length;
    const r = await run(
      ["llm", "ask", "-c", "q.chat", "-b", "openai", "-O", `url=${srv.url}`, "-m", "m"],
      { env: h.env, cwd: h.path },
    );
    assert.equal(r.code, 0, `${name}: ${r.stderr}`);
    assert.equal(r.stdout, "Done.\n", name);
    const sent = srv.requests.slice(from);
    const tool =
      (sent[0]!.body.tools as { function: { parameters: { properties: object } } }[])[0]!;
    assert.ok(Object.hasOwn(tool.function.parameters.properties, "__proto__"), name);
    // each tool output as the next request carries it back to the model
    const output = (i: number) => {
      const msgs = sent[i]!.body.messages as { role: string; content: string }[];
      return JSON.parse(msgs.filter((m) => m.role === "tool").at(-1)!.content);
    };
    assert.deepEqual(output(1), PROTO_NONE, name);
    assert.deepEqual(output(2), PROTO_GIVEN, name);
  }
});
