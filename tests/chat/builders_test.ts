import assert from "node:assert/strict";
import {
  assistant,
  association,
  continueChat,
  directory,
  endpoint,
  execTask,
  extractOptions,
  file,
  format,
  image,
  importChat,
  importLast,
  inlineJob,
  inlineTask,
  introduce,
  job,
  message,
  model,
  option,
  parse,
  parseOptions,
  pdf,
  print,
  stickyOption,
  system,
  tag,
  tagText,
  task,
  toMessages,
  tool,
  user,
} from "../../src/chat/mod.ts";
import * as api from "../../mod.ts";
import type { Chat } from "../../src/chat/mod.ts";

Deno.test("builders push onto the same array and return it", () => {
  const chat: Chat = [];
  assert.equal(user(chat, "q"), chat);
  system(chat, "s");
  assistant(chat, "a");
  message(chat, "custom", { x: 1 });
  importChat(chat, "a.chat");
  importLast(chat, "b.chat");
  continueChat(chat, "c.chat");
  file(chat, "f.txt");
  directory(chat, "docs");
  pdf(chat, "p.pdf");
  image(chat, "i.png");
  introduce(chat, "Baking");
  job(chat, "/jobs/Baking/bake/Default");
  inlineJob(chat, "/jobs/Baking/recipe/Default");
  assert.deepEqual(chat.map((m) => [m.role, m.content]), [
    ["user", "q"],
    ["system", "s"],
    ["assistant", "a"],
    ["custom", { x: 1 }],
    ["import", "a.chat"],
    ["last", "b.chat"],
    ["continue", "c.chat"],
    ["file", "f.txt"],
    ["directory", "docs"],
    ["pdf", "p.pdf"],
    ["image", "i.png"],
    ["introduce", "Baking"],
    ["job", "/jobs/Baking/bake/Default"],
    ["inline_job", "/jobs/Baking/recipe/Default"],
  ]);
});

Deno.test("option/stickyOption: `name value`, null → empty value (kept by the nil rule)", () => {
  const chat: Chat = [];
  option(chat, "temperature", 0.2);
  option(chat, "seed", null);
  stickyOption(chat, "reasoning_effort", "low");
  assert.deepEqual(chat, [
    { role: "option", content: "temperature 0.2" },
    { role: "option", content: "seed " },
    { role: "sticky_option", content: "reasoning_effort low" },
  ]);
  assert.deepEqual(extractOptions(chat).options, {
    reasoning_effort: "low",
    temperature: "0.2",
    seed: "",
  });
});

Deno.test("endpoint/model D14: sticky roles (Ruby: non-sticky option messages)", () => {
  const chat: Chat = [];
  endpoint(chat, "local");
  model(chat, "m1");
  assistant(chat, "reply");
  assert.deepEqual(chat.slice(0, 2), [
    { role: "endpoint", content: "local" },
    { role: "model", content: "m1" },
  ]);
  // Ruby's `option: endpoint local` would be reset by the assistant reply.
  assert.deepEqual(extractOptions(chat).options, { endpoint: "local", model: "m1" });
  const ruby: Chat = [{ role: "option", content: "model m1" }, { role: "assistant", content: "r" }];
  assert.deepEqual(extractOptions(ruby).options, {});
});

Deno.test("format: string, schema object, null cancels", () => {
  const schema = { type: "object" };
  const chat: Chat = [];
  format(chat, "json");
  assert.equal(extractOptions(chat).options.format, "json");
  format(chat, schema);
  assert.equal(extractOptions(chat).options.format, schema);
  format(chat, null);
  assert.equal("format" in extractOptions(chat).options, false);
  // A schema object printed and parsed back is recognised again (D18).
  const back = parse(print([{ role: "format", content: schema }]));
  assert.deepEqual(extractOptions(back).options.format, schema);
});

Deno.test("tool joins parts with newlines", () => {
  assert.deepEqual(tool([], "Baking", "bake_muffin_tray"), [
    { role: "tool", content: "Baking\nbake_muffin_tray" },
  ]);
});

Deno.test("task/execTask/inlineTask print inputs with printOptions (trailing space without)", () => {
  const chat: Chat = [];
  task(chat, "Baking", "bake", { n: 2, name: "blue muffins", tags: ["a", "b"] });
  execTask(chat, "Baking", "recipe");
  inlineTask(chat, "Baking", "recipe", { x: "" });
  assert.deepEqual(chat, [
    { role: "task", content: 'Baking bake n=2 name="blue muffins" tags=a,b' },
    { role: "exec_task", content: "Baking recipe " },
    { role: "inline_task", content: 'Baking recipe x=""' },
  ]);
  assert.deepEqual(parseOptions(String(chat[0]!.content)), {
    n: 2,
    name: "blue muffins",
    tags: ["a", "b"],
  });
});

Deno.test("association D13: name, path and options (Ruby: the name only)", () => {
  const chat: Chat = [];
  association(chat, "genes", "data/genes.tsv", { fields: ["name", "chr"], type: "tsv" });
  association(chat, "pairs", "pairs.tsv");
  assert.deepEqual(chat, [
    { role: "association", content: "genes data/genes.tsv fields=name,chr type=tsv" },
    { role: "association", content: "pairs pairs.tsv" },
  ]);
  assert.notEqual(chat[0]!.content, "genes");
});

Deno.test("tag / tagText", () => {
  assert.equal(tagText("body", { name: "a.txt" }), '<file name="a.txt">\nbody\n</file>');
  assert.equal(tagText("body"), "<file>\nbody\n</file>");
  assert.deepEqual(tag([], "x", { tag: "note", role: "system" }), [
    { role: "system", content: "<note>\nx\n</note>" },
  ]);
  // A tagged message is protected when printed and parsed back.
  const chat = tag([], "user: inside\nassistant: also", { name: "f" });
  assert.deepEqual(parse(print(chat)).slice(1), chat);
});

Deno.test("toMessages(question, role): the role names the array's strings; text is parsed, role unused (Ruby LLM.messages)", () => {
  assert.equal(api.toMessages, toMessages, "exported from mod.ts");
  const sys = { role: "system", content: "s" };
  assert.deepEqual(toMessages(["q", sys], "assistant"), [{ role: "assistant", content: "q" }, sys]);
  assert.deepEqual(toMessages(["q"]), [{ role: "user", content: "q" }]);
  assert.deepEqual(
    toMessages(["q"], ""),
    [{ role: "", content: "q" }],
    "any string, as Ruby's role || 'user'",
  );
  assert.deepEqual(toMessages("assistant: a", "system"), toMessages("assistant: a"));
  assert.deepEqual(toMessages("assistant: a", "system").map((m) => m.role), ["user", "assistant"]);
});
