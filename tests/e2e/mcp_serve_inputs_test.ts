/**
 * A `workflow mcp` tool call is held to the schema the server advertises, as
 * a model's tool call is (R126-5): an integer input given "abc" ran the job
 * with 0, and a `select` given a value outside its `enum` ran silently. A
 * real server process over stdio, a real job store: an invalid call is an MCP
 * tool error naming the input, what it takes and the value given, and no job
 * is made; a valid one (a numeric string for an integer too) runs.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/cli.ts";
import { mcpStdioSession, spawnWorkflowMcp } from "../support/mcp_stdio_lines.ts";

const G = `export default (api) => api.workflow("G", { tasks: {
  words: { type: "string",
    inputs: {
      min_len: api.input.integer({ description: "shortest word", default: 3 }),
      organism: api.input.select(["human", "mouse", "rat"], { description: "organism", default: "human" }),
    },
    run: ({ min_len, organism }) => organism + " " + min_len },
} });
`;

Deno.test("workflow mcp: arguments that do not fit the advertised schema are a tool error and run no job (R126-5)", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(join(dir.path, "workflows/G"), { recursive: true });
  await Deno.writeTextFile(join(dir.path, "workflows/G/workflow.ts"), G);
  const call = (id: number, args: Record<string, unknown>) => ({
    id,
    method: "tools/call",
    params: { name: "words", arguments: args },
  });
  const child = spawnWorkflowMcp(dir.path, { SCOUT_HOME: join(dir.path, "home"), NO_COLOR: "1" }, [
    "G",
    "words",
  ]);
  const w = child.stdin.getWriter();
  await w.write(new TextEncoder().encode(mcpStdioSession(
    { id: 2, method: "tools/list" },
    call(3, { min_len: "abc" }),
    call(4, { organism: "dog" }),
    call(5, { min_len: [4] }),
  )));
  await w.close();
  const out = await child.output();
  const stdout = new TextDecoder().decode(out.stdout);
  const replies = new Map(
    stdout.trim().split("\n").map((l) => JSON.parse(l)).map((m) => [m.id, m.result]),
  );
  const schema = replies.get(2)?.tools?.[0]?.inputSchema;
  assert.deepEqual(schema?.properties?.organism?.enum, ["human", "mouse", "rat"]);
  assert.equal(schema?.properties?.min_len?.type, "integer");
  const error = (id: number) => {
    const r = replies.get(id);
    assert.equal(r?.isError, true, JSON.stringify(r) + new TextDecoder().decode(out.stderr));
    return r.content[0].text;
  };
  assert.equal(
    error(3),
    `Invalid arguments for 'words': "min_len" must be integer, got string "abc"`,
  );
  assert.equal(
    error(4),
    `Invalid arguments for 'words': "organism" must be one of ["human","mouse","rat"], got "dog"`,
  );
  assert.equal(error(5), `Invalid arguments for 'words': "min_len" must be integer, got array [4]`);
  const jobs = join(dir.path, "home/var/jobs/G/words");
  assert.deepEqual(existsSync(jobs) ? readdirSync(jobs) : [], [], "no job made");
  assert.equal(out.code, 0);

  // valid calls run: a numeric string for an integer, a choice
  const ok = spawnWorkflowMcp(dir.path, { SCOUT_HOME: join(dir.path, "home"), NO_COLOR: "1" }, [
    "G",
    "words",
  ]);
  const w2 = ok.stdin.getWriter();
  await w2.write(
    new TextEncoder().encode(mcpStdioSession(call(6, { min_len: "5", organism: "rat" }))),
  );
  await w2.close();
  const okOut = await ok.output();
  const okReply = JSON.parse(new TextDecoder().decode(okOut.stdout).trim().split("\n").at(-1)!);
  assert.equal(okReply.id, 6);
  assert.deepEqual(okReply.result.content, [{ type: "text", text: "rat 5" }]);
});
