/**
 * The named stages of the ask pipeline, one at a time: the context and its
 * run-scoped resources, the compiled-input check, the request options, the
 * chat stage and the model stage.
 */
import assert from "node:assert/strict";
import {
  askContext,
  closeAsk,
  requestOptions,
  requireCompiled,
  resolveRequest,
} from "../../src/llm/ask_options.ts";
import { prepareChat } from "../../src/llm/ask_tools.ts";
import { resolveModel } from "../../src/llm/ask_backend.ts";
import { tempDir } from "../support/cli.ts";

Deno.test("closeAsk closes run-scoped resources last first; a failing close is a warning", async () => {
  const warnings: string[] = [];
  const ctx = askContext({ env: {}, warn: (m) => warnings.push(m) });
  const closed: string[] = [];
  ctx.onClose.push(() => closed.push("first"));
  ctx.onClose.push(() => {
    throw new Error("socket gone");
  });
  ctx.onClose.push(async () => {
    await Promise.resolve();
    closed.push("third");
  });
  await closeAsk(ctx);
  assert.deepEqual(closed, ["third", "first"]);
  assert.deepEqual(warnings, ["Cannot close a resource of the ask: socket gone"]);
  await closeAsk(ctx); // closed once
  assert.deepEqual(closed, ["third", "first"]);
});

Deno.test("requireCompiled names the first uncompiled role; requestOptions drops runtime hooks", () => {
  assert.throws(
    () => requireCompiled([{ role: "user", content: "x" }, { role: "import", content: "a.chat" }]),
    /Compile the chat before asking: found "import:"/,
  );
  requireCompiled([{ role: "user", content: "x" }]);
  assert.deepEqual(
    requestOptions({ model: "m", env: {}, stream: true, offline: true, temperature: null, x: 1 }),
    { model: "m", x: 1 },
  );
});

Deno.test("resolveRequest → prepareChat → resolveModel: chat options win, persist/agent/threading taken out", async () => {
  await using dir = await tempDir();
  const ctx = askContext({
    env: { SCOUT_HOME: dir.path, OPENAI_API_KEY: "sk-x" },
    cwd: dir.path,
    model: "call-model",
    backend: "openai",
    persist: "false",
    temperature: 0.5,
  });
  const req = await resolveRequest([
    { role: "option", content: "model chat-model" },
    { role: "meta", content: "pt=1 ct=1 tt=2" },
    { role: "previous_response_id", content: "resp_1" },
    { role: "user", content: "hi" },
  ], ctx);
  assert.equal(req.opts.model, "chat-model");
  assert.equal(req.persist, "false");
  assert.equal(req.agent, null);
  assert.ok(!("persist" in req.opts));
  const prepared = await prepareChat(req, ctx);
  assert.deepEqual(prepared.chat, [{ role: "user", content: "hi" }]); // meta and the id out
  assert.equal(prepared.currentMeta.pt, 1);
  const model = await resolveModel(req, prepared, ctx);
  assert.equal(model.settings.model, "chat-model");
  assert.equal(model.useCache, false); // persist: false
  assert.equal(model.offline, false);
  assert.equal(model.maxToolRounds, 100);
  const offline = await resolveModel(req, prepared, askContext({ ...ctx.options, offline: true }));
  assert.equal(offline.useCache, true); // offline turns the cache on
});
