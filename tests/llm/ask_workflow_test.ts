/**
 * The multi-round tool loop with a *workflow* tool, per backend: a chat's
 * `tool:` line exposes a task, the model calls it over two rounds, each call
 * runs as a persisted job in the job store under SCOUT_HOME, and the outputs
 * carry the job's `step`. Afterwards no file under SCOUT_HOME (job store,
 * cache) holds the API key.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseMeta } from "../../src/chat/meta.ts";
import type { Message } from "../../src/chat/types.ts";
import { ask } from "../../src/llm/ask.ts";
import { newSession } from "../../src/llm/meta_record.ts";
import { input, workflow } from "../../src/workflow/define.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { tempDir } from "../support/cli.ts";

const KEY = "sk-workflow-SECRET-77aa";
const runs: string[] = [];

workflow("Pantry", {
  title: "Pantry",
  description: "Look things up in the pantry.",
  tasks: {
    stock: {
      type: "json",
      description: "How many of an item are in stock",
      inputs: {
        item: input.string({ description: "Item", required: true }),
        unit: input.select(["pieces", "kg"], { default: "pieces", description: "Unit" }),
      },
      run: ({ item, unit }) => {
        runs.push(`${item}/${unit}`);
        return { item, unit, count: String(item).length };
      },
    },
  },
});

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for await (const e of Deno.readDir(d)) {
      const p = join(d, e.name);
      if (e.isDirectory) await walk(p);
      else out.push(p);
    }
  };
  await walk(dir);
  return out;
}

for (const backend of ["responses", "openai", "anthropic", "ollama", "vllm"]) {
  Deno.test(`${backend}: multi-round loop with a workflow tool; jobs persisted; no key on disk`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    runs.length = 0;
    const noId = backend === "ollama";
    srv.script(
      {
        toolCalls: [{
          name: "stock",
          arguments: { item: "eggs" },
          ...(noId ? {} : { id: "call_1" }),
        }],
      },
      {
        toolCalls: [
          {
            name: "stock",
            arguments: { item: "flour", unit: "pieces" },
            ...(noId ? {} : { id: "call_2" }),
          },
          { name: "stock", arguments: { item: "eggs" }, ...(noId ? {} : { id: "call_3" }) },
        ],
      },
      { text: "You have 4 eggs and 5 kg of flour." },
    );
    const chat: Message[] = [
      { role: "tool", content: "Pantry stock item unit=kg" },
      { role: "user", content: "What do I have?" },
    ];
    const r = await ask(chat, {
      backend,
      url: srv.url,
      model: "m",
      key: KEY,
      env: { SCOUT_HOME: home.path },
      cwd: home.path,
      config: { entries: [] },
      session: newSession(),
    });
    assert.equal(r.text, "You have 4 eggs and 5 kg of flour.");
    // the pinned unit wins; the same job twice runs once
    assert.deepEqual(runs, ["eggs/kg", "flour/kg"]);
    const outs = r.messages.filter((m) => m.role === "function_call_output").map((m) =>
      JSON.parse(String(m.content))
    );
    assert.equal(outs.length, 3);
    assert.deepEqual(JSON.parse(outs[0].content), { item: "eggs", unit: "kg", count: 4 });
    assert.match(outs[0].step, /^Pantry\/stock\/Default_[0-9a-f]{32}(\.json)?$/);
    assert.equal(outs[2].step, outs[0].step);
    // the definition sent: only `item` exposed (plus return_path), unit pinned and hidden
    const sent = JSON.stringify(srv.requests[0]!.body);
    assert.ok(
      sent.includes('"item"') && !sent.includes('"kg"') && !sent.includes("defaults"),
      sent,
    );
    assert.equal(r.messages.filter((m) => m.role === "meta").length, 3);
    assert.equal(
      parseMeta(
        String(r.messages.at(backend === "responses" || backend === "vllm" ? -3 : -2)!.content),
      ).pt_c,
      30,
    );
    // job files exist in the job store under SCOUT_HOME, and nothing there holds the key
    const files = await filesUnder(home.path);
    assert.ok(
      files.some((f) => f.includes(join("var", "jobs", "Pantry", "stock"))),
      files.join("\n"),
    );
    assert.ok(files.some((f) => f.includes(join("var", "cache", "ask"))), files.join("\n"));
    for (const f of files) assert.ok(!(await Deno.readTextFile(f)).includes(KEY), `key in ${f}`);
  });
}
