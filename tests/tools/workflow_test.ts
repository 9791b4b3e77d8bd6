import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import { runToolCalls } from "../../src/tools/dispatch.ts";
import { providerDefinitions, toolRegistry } from "../../src/tools/registry.ts";
import {
  introductionText,
  parseToolFilter,
  taskToolDefinition,
  workflowToolNames,
  workflowToolResolver,
  workflowTools,
} from "../../src/tools/workflow.ts";
import { input, workflow } from "../../src/workflow/define.ts";
import { createJob } from "../../src/workflow/job.ts";
import { runJob } from "../../src/workflow/run.ts";
import { readJobInfo } from "../../src/workflow/info.ts";
import { ScoutError } from "../../src/errors.ts";
import { homeIn, tempDir } from "../support/cli.ts";

function kitchen(jobsDir: string, runs: string[] = []) {
  return workflow("Kitchen", {
    title: "Kitchen",
    description: "Cooking jobs.",
    jobsDir,
    exports: { exec: ["taste"], asynchronous: ["whisk", "cake", "broken"] },
    tasks: {
      whisk: {
        type: "string",
        description: "Whisk some eggs",
        inputs: {
          eggs: input.integer({ description: "Number of eggs", required: true }),
          style: input.select(["soft", "hard"], { default: "soft", description: "Style" }),
          tags: input.array({ description: "Tags" }),
          ratio: input.float({ default: 1.5, description: "Ratio" }),
          fast: input.boolean({ default: false, description: "Fast" }),
        },
        run: ({ eggs, style }) => {
          runs.push(`whisk ${eggs}`);
          return `Whisked ${eggs} ${style}`;
        },
      },
      cake: {
        type: "json",
        inputs: {
          minutes: input.integer({ default: 30, schema: z.number().int().min(1).max(120) }),
          recipe: input.file({ description: "Recipe file" }),
          meta: input.json({}),
          counts: input.arrayOf("integer"),
          sheet: input.tsv({}),
        },
        deps: ["whisk"],
        run: async ({ minutes }, job) => {
          runs.push(`cake ${minutes}`);
          return { cake: await job.load("whisk"), minutes };
        },
      },
      taste: {
        type: "string",
        inputs: { what: input.string({}) },
        run: ({ what }) => `tastes like ${what}`,
      },
      broken: {
        type: "string",
        run: () => {
          throw new Error("The oven is broken");
        },
      },
      hidden: { type: "string", run: () => "not exported" },
    },
  });
}

Deno.test("definition of a task reproduces the §6.2 shape (recursive inputs, enum, array items, return_path)", async () => {
  await using d = await tempDir();
  const wf = kitchen(d.path);
  assert.deepEqual(taskToolDefinition(wf, "whisk"), {
    type: "function",
    function: {
      name: "whisk",
      description: "Whisk some eggs",
      parameters: {
        type: "object",
        properties: {
          eggs: { type: "integer", description: "Number of eggs" },
          style: { type: "string", description: "Style", enum: ["soft", "hard"] },
          tags: { type: "array", description: "Tags", items: { type: "string" } },
          ratio: { type: "number", description: "Ratio" },
          fast: { type: "boolean", description: "Fast" },
          return_path: {
            type: "boolean",
            description: "Instead of the result of the job, return the path where it is persisted",
          },
        },
        required: ["eggs"],
      },
    },
  });
  // exec exports get no return_path
  assert.equal(
    "return_path" in taskToolDefinition(wf, "taste").function.parameters!.properties!,
    false,
  );
});

Deno.test("types: file/tsv → string, json → object, <t>_array → array of strings ([§7.4 #3]); zod constraints merged", async () => {
  await using d = await tempDir();
  const p = taskToolDefinition(kitchen(d.path), "cake").function.parameters!.properties!;
  assert.deepEqual(p.recipe, { type: "string", description: "Recipe file" });
  assert.deepEqual(p.meta, { type: "object", description: "" });
  assert.deepEqual(p.counts, { type: "array", description: "", items: { type: "string" } });
  assert.deepEqual(p.sheet, { type: "string", description: "" });
  assert.deepEqual(p.minutes, { type: "integer", description: "", minimum: 1, maximum: 120 });
  // recursive inputs: cake exposes whisk's inputs too
  assert.ok("eggs" in p && "style" in p);
});

Deno.test("offered tasks: the exported ones, or all when none is exported", async () => {
  await using d = await tempDir();
  assert.deepEqual(workflowToolNames(kitchen(d.path)), ["whisk", "cake", "taste", "broken"]);
  const plain = workflow("PlainKitchen", {
    jobsDir: d.path,
    tasks: { a: { run: () => 1 }, b: { run: () => 2 } },
  });
  assert.deepEqual(workflowToolNames(plain), ["a", "b"]);
});

Deno.test("tool: filters: names expose, name=value pins (hidden from the provider), none exposes nothing", async () => {
  await using d = await tempDir();
  const wf = kitchen(d.path);
  assert.deepEqual(parseToolFilter(["eggs", "style=hard"]), {
    names: ["eggs"],
    fixed: { style: "hard" },
  });
  const def = workflowTools(wf, "whisk", ["eggs", "style=hard"])[0]!.definition;
  const params = (def as { function: { parameters: Record<string, unknown> } }).function.parameters;
  assert.deepEqual(Object.keys(params.properties as object), ["eggs", "return_path"]);
  assert.deepEqual(params.defaults, { style: "hard" });
  assert.ok(
    !JSON.stringify(providerDefinitions(toolRegistry(workflowTools(wf, "whisk", ["style=hard"]))))
      .includes("hard"),
  );
  const none = workflowTools(wf, "whisk", ["none"])[0]!.definition as {
    function: { parameters: { properties: object; required: string[] } };
  };
  assert.deepEqual(Object.keys(none.function.parameters.properties), ["return_path"]);
  assert.deepEqual(none.function.parameters.required, []);
});

Deno.test("a call runs the task as a persisted job: content = result, step = short path; done jobs are loaded, not rerun", async () => {
  await using d = await tempDir();
  const runs: string[] = [];
  const wf = kitchen(d.path, runs);
  const env = homeIn(d.path);
  const registry = toolRegistry(workflowTools(wf, "whisk", ["style=hard"], { env }));
  const call = { name: "whisk", arguments: { eggs: 3, style: "soft" }, id: "c1" };
  const out = await runToolCalls([call, { ...call, id: "c2" }], { registry });
  const envs = [out[1]!, out[3]!].map((m) => JSON.parse(String(m.content)));
  assert.equal(envs[0].content, "Whisked 3 hard");
  assert.match(envs[0].step, /^Kitchen\/whisk\/Default_[0-9a-f]{32}$/);
  assert.equal(envs[1].step, envs[0].step);
  assert.deepEqual(runs, ["whisk 3"]);
  assert.deepEqual(Object.keys(envs[0]), [
    "name",
    "content",
    "id",
    "step",
    "start_timestamp",
    "timestamp",
  ]);
  assert.ok(
    await Deno.stat(join(d.path, envs[0].step.replace(/^Kitchen\//, ""))).catch(() => null) ||
      await Deno.stat(join(d.path, "Kitchen", envs[0].step.replace(/^Kitchen\//, ""))).catch(() =>
        null
      ),
  );
});

Deno.test("return_path, jobname, exec exports, failed jobs and parameter errors", async () => {
  await using d = await tempDir();
  const wf = kitchen(d.path);
  const registry = toolRegistry(workflowTools(wf, undefined, [], { env: homeIn(d.path) }));
  const out = await runToolCalls([
    { name: "whisk", arguments: { eggs: 2, return_path: true, jobname: "mine" }, id: "p" },
    { name: "taste", arguments: { what: "salt" }, id: "t" },
    { name: "broken", arguments: {}, id: "b" },
    { name: "whisk", arguments: {}, id: "m" },
    { name: "cake", arguments: { eggs: 4, minutes: 20 }, id: "k" },
  ], { registry });
  const env = out.filter((_, i) => i % 2).map((m) => JSON.parse(String(m.content)));
  assert.match(env[0].step, /^Kitchen\/whisk\/mine_[0-9a-f]{32}$/);
  assert.ok(env[0].content.endsWith("/" + env[0].step), env[0].content);
  assert.equal(env[1].content, "tastes like salt");
  assert.equal(env[1].step, undefined);
  assert.equal(env[2].error, "error");
  assert.equal(env[2].step, "Kitchen/broken/Default");
  assert.match(JSON.parse(env[2].content).exception, /The oven is broken/);
  assert.equal(env[3].error, "error");
  assert.match(JSON.parse(env[3].content).exception, /eggs/);
  assert.deepEqual(JSON.parse(env[4].content), { cake: "Whisked 4 soft", minutes: 20 });
});

Deno.test("strings naming files are not replaced by their content in tool calls (§7.4 #2)", async () => {
  await using d = await tempDir();
  const secret = join(d.path, "secret.txt");
  await Deno.writeTextFile(secret, "TOP SECRET");
  const wf = workflow("Echoes", {
    jobsDir: d.path,
    tasks: {
      echo: { type: "string", inputs: { text: input.string({}) }, run: ({ text }) => text },
    },
  });
  const out = await runToolCalls([{ name: "echo", arguments: { text: secret }, id: "e" }], {
    registry: toolRegistry(workflowTools(wf, undefined, [], { env: homeIn(d.path) })),
  });
  assert.equal(JSON.parse(String(out[1]!.content)).content, secret);
});

Deno.test("resolver: registered workflows by name, introductions, unknown workflows", async () => {
  await using d = await tempDir();
  const wf = kitchen(d.path);
  const r = workflowToolResolver({ cwd: d.path, env: { SCOUT_HOME: d.path } });
  const entries = await r.workflowTools!(["Kitchen", "whisk", "eggs"]);
  assert.equal(entries.length, 1);
  assert.equal((await r.workflowTools!(["Kitchen"])).length, 4);
  assert.equal(await r.introduce!("Kitchen"), introductionText(wf));
  assert.equal(
    introductionText(wf),
    "You have access to tools from workflow 'Kitchen'. \nBelow is the documentation of the workflow:\n\n# Kitchen\n\nCooking jobs.\n",
  );
  await assert.rejects(() => r.workflowTools!(["NoSuchFlow"]), /Workflow not found NoSuchFlow/);
  await assert.rejects(() => r.workflowTools!(["Kitchen", "nosuch"]), /nosuch/);
});

Deno.test("a call for a job running in this process is refused as a potential recursive call, not waited on forever (§6.3)", async () => {
  await using d = await tempDir();
  let registry = toolRegistry([]);
  const wf = workflow("Nest", {
    jobsDir: d.path,
    tasks: {
      nest: {
        type: "string",
        inputs: {
          n: input.integer({ required: true }),
          same: input.boolean({ default: false }),
        },
        run: async ({ n, same }) => {
          if (n === 0) return "base";
          const args = same ? { n, same } : { n: Number(n) - 1 };
          const out = await runToolCalls([{ name: "nest", arguments: args, id: "x" }], {
            registry,
          });
          const env = JSON.parse(String(out[1]!.content));
          return `${n}>` + (env.error ? "ERR " + JSON.parse(env.content).exception : env.content);
        },
      },
    },
  });
  registry = toolRegistry(workflowTools(wf, undefined, [], { env: homeIn(d.path) }));
  const bounded = <T>(p: Promise<T>) =>
    Promise.race([
      p,
      new Promise<never>((_, reject) => {
        const t = setTimeout(() => reject(new Error("the call waited for itself")), 5000);
        Deno.unrefTimer(t);
      }),
    ]);
  const content = async (args: Record<string, unknown>) => {
    const out = await bounded(runToolCalls([{ name: "nest", arguments: args, id: "c" }], {
      registry,
    }));
    return JSON.parse(String(out[1]!.content)).content;
  };
  // nested calls of other jobs are fine
  assert.equal(await content({ n: 2 }), "2>1>base");
  // the job's body asking for itself gets an error output
  assert.match(
    await content({ n: 1, same: true }),
    /^1>ERR Potential recursive call: job "Nest\/nest\//,
  );
  // also when the job was started outside the tool layer (workflow task, chat task)
  const job = createJob(wf, "nest", { env: homeIn(d.path), inputs: { n: 3, same: true } });
  assert.match(String(await bounded(runJob(job))), /^3>ERR Potential recursive call/);
});

Deno.test("a job in an unrecoverable error is reported from its info, not rerun; a recoverable one is rerun (§4, §6.4)", async () => {
  await using d = await tempDir();
  const runs: string[] = [];
  const wf = workflow("Oven", {
    jobsDir: d.path,
    tasks: {
      picky: {
        type: "string",
        run: () => {
          runs.push("picky");
          throw new ScoutError("job_failed", "No gluten here"); // deliberate: a Scout exception
        },
      },
      flaky: {
        type: "string",
        run: () => {
          runs.push("flaky");
          throw new Error("The fuse blew"); // recoverable: a retry may succeed
        },
      },
    },
  });
  const callWith = (env: Record<string, string | undefined>) => async (name: string) => {
    const registry = toolRegistry(workflowTools(wf, undefined, [], { env }));
    const out = await runToolCalls([{ name, arguments: {}, id: name }], { registry });
    return JSON.parse(String(out[1]!.content));
  };
  const call = callWith(homeIn(d.path));
  const first = await call("picky");
  const again = await call("picky");
  assert.deepEqual(runs, ["picky"]);
  assert.equal(again.error, "error");
  assert.equal(again.step, first.step);
  assert.match(JSON.parse(again.content).exception, /No gluten here/);
  const { info } = await readJobInfo(createJob(wf, "picky").path);
  // the info keeps the backtrace (parity); the output keeps Ruby's {exception, stack} shape
  // without the frames, which are the program's own ([TS-FIX], R81-5)
  assert.ok((info?.backtrace as string[]).length > 0);
  assert.deepEqual(Object.keys(JSON.parse(again.content)), ["exception", "stack"]);
  assert.deepEqual(JSON.parse(again.content).stack, []);
  assert.deepEqual(JSON.parse(first.content).stack, []);

  await call("flaky");
  const rerun = await call("flaky");
  assert.deepEqual(runs, ["picky", "flaky", "flaky"]);
  assert.match(JSON.parse(rerun.content).exception, /The fuse blew/);
  // SCOUT_NO_RECOVERABLE_ERROR=true: every error is final, so it is reported too
  const final = await callWith({ ...homeIn(d.path), SCOUT_NO_RECOVERABLE_ERROR: "true" })("flaky");
  assert.deepEqual(runs, ["picky", "flaky", "flaky"]);
  assert.equal(final.error, "error");
  assert.match(JSON.parse(final.content).exception, /The fuse blew/);
});
