/**
 * Keys named `__proto__` in an agent's answers, copies, lifts and options are
 * kept like any, under Bun (the binary's runtime) as under Deno (R112-5
 * follow-up): `iterateDictionary`'s map, the fields of a `jsonFormat`
 * shorthand schema, a deep copy (a specialist's inherited conversation, a
 * clone's options), the options lifted from a start chat and the extra
 * options of a chat task's `agent()`. Each was a plain `{}` assigned key by
 * key, where Bun's `__proto__` setter dropped a string and made an object the
 * record's prototype.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { runScript, RUNTIMES } from "../support/runtimes.ts";

const SCRIPT = `import { createAgent } from "./src/agent/agent.ts";
import { liftStartOptions } from "./src/agent/lift.ts";
import { deepCopy } from "./src/agent/socialize.ts";
import { iterateDictionary, json, jsonFormat } from "./src/agent/structured.ts";
const home = process.env.PROTO_HOME;
const a = createAgent({
  options: { backend: "openai", url: process.env.PROTO_URL, model: "m", persist: false },
  runtime: { env: { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" }, cwd: home },
});
const seen = [];
const map = await iterateDictionary(a, "Map it", (k, v) => { seen.push(k + "=" + v); });
const answer = await json(a);
const shaped = await jsonFormat(a, JSON.parse('{"__proto__": "string", "b": "string"}'));
const copy = deepCopy(JSON.parse('{"args": {"__proto__": {"polluted": true}, "x": 1}}'));
const lifted = createAgent({ startChat: [
  { role: "system", content: "s" }, { role: "option", content: "__proto__ x" },
] });
liftStartOptions(lifted, {});
console.log(JSON.stringify({
  map: Object.keys(map), seen, answer: Object.keys(answer), shaped: Object.keys(shaped),
  copy: { keys: Object.keys(copy.args), polluted: copy.args.polluted ?? null },
  lifted: JSON.stringify(lifted.options),
}));`;

Deno.test("iterateDictionary, jsonFormat, deepCopy and a lift keep keys named __proto__ under Bun and Deno", async () => {
  await using d = await tempDir();
  await using srv = await startProviderServer();
  const env = { PROTO_URL: srv.url, PROTO_HOME: join(d.path, "home") };
  for (const runtime of RUNTIMES) {
    srv.script(
      { text: '{"__proto__": "x", "constructor": "c", "a": "1"}' },
      { text: '{"__proto__": {"p": 1}, "toString": "t"}' },
      { text: '{"__proto__": "y", "b": "z"}' },
    );
    const from = srv.requests.length;
    // before, under Bun: map and seen without __proto__'s, the schema asked for ["b"] only,
    // the copy's keys ["x"] with `polluted` inherited, the lifted options {}
    assert.deepEqual(await runScript(runtime, SCRIPT, env), {
      map: ["__proto__", "constructor", "a"],
      seen: ["__proto__=x", "constructor=c", "a=1"],
      answer: ["__proto__", "toString"],
      shaped: ["__proto__", "b"],
      copy: { keys: ["__proto__", "x"], polluted: null },
      lifted: '{"__proto__":"x"}',
    }, runtime);
    const format = srv.requests[from + 2]!.body.response_format as {
      json_schema: { schema: { properties: object; required: string[] } };
    };
    assert.deepEqual(Object.keys(format.json_schema.schema.properties), ["__proto__", "b"]);
    assert.deepEqual(format.json_schema.schema.required, ["__proto__", "b"], runtime);
  }
});

const TASK_SCRIPT = `import { workflow } from "./src/workflow/define.ts";
import { createJob } from "./src/workflow/job.ts";
import { runJob } from "./src/workflow/run.ts";
import { chatTask } from "./src/agent/chat_task.ts";
const dir = process.env.PROTO_HOME;
const wf = workflow("ProtoTask", {
  jobsDir: dir + "/jobs",
  tasks: chatTask("ask", async ({ agent }) => {
    const a = await agent(null, { ["__proto__"]: "x", constructor: "c", tooling: false });
    return JSON.stringify(Object.keys(a.options).filter((k) => k === "__proto__" || k === "constructor"));
  }),
});
const job = createJob(wf, "ask", { env: { SCOUT_HOME: dir + "/home" }, inputs: { chat: "user:\\n\\nhi\\n" } });
console.log(JSON.stringify((await runJob(job)).at(-1).content));`;

Deno.test("a chat task's agent(): an extra option named __proto__ is an option, under Bun and Deno", async () => {
  for (const runtime of RUNTIMES) {
    await using d = await tempDir();
    // before, under Bun: ["constructor"] (the setter took "x")
    const keys = await runScript(runtime, TASK_SCRIPT, { PROTO_HOME: d.path });
    assert.deepEqual(JSON.parse(keys as string), ["__proto__", "constructor"], runtime);
  }
});
