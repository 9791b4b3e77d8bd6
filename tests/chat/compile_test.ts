import assert from "node:assert/strict";
import { compile, compileFile, compileText, toMessages } from "../../src/chat/compile.ts";
import { loadRaw } from "../../src/chat/load.ts";
import { addConfigEntry, configGet } from "../../src/config/store.ts";
import { isScoutError } from "../../src/errors.ts";
import type { Message } from "../../src/chat/types.ts";
import { isolated, rc, tree } from "./compile_support.ts";

const m = (role: string, content: unknown): Message => ({ role, content });

Deno.test("C1: clear keeps only what follows the last clear", async () => {
  const out = await compile(
    [
      m("system", "s"),
      m("user", "a"),
      m("clear", "x"),
      m("user", "b"),
      m("clear", "y"),
      m("user", "c"),
    ],
    isolated("/"),
  );
  assert.deepEqual(rc(out), ["user:c"]);
});

Deno.test("C2/C3: clear_tools drops earlier tool-call history unless it says false", async () => {
  const c2 = await compile(
    [
      m("function_call", "f1"),
      m("function_call_output", "o1"),
      m("clear_tools", "true"),
      m("function_call", "f2"),
      m("function_call_output", "o2"),
      m("user", "u"),
    ],
    isolated("/"),
  );
  assert.deepEqual(rc(c2), ["function_call:f2", "function_call_output:o2", "user:u"]);
  const c3 = await compile(
    [
      m("function_call", "f0"),
      m("clear_tools", "false"),
      m("function_call", "f1"),
      m("clear_tools", "yes"),
      m("function_call", "f2"),
    ],
    isolated("/"),
  );
  assert.deepEqual(rc(c3), ["function_call:f0", "function_call:f2"]);
});

Deno.test("C4: clean_role removes that role; clean drops empty strings (null survives)", async () => {
  const out = await compile(
    [
      m("system", "s"),
      m("user", "a"),
      m("clean_role", "user"),
      m("assistant", "b"),
      m("user", "c"),
    ],
    isolated("/"),
  );
  assert.deepEqual(rc(out), ["system:s", "assistant:b"]);
  const d = await compile(
    [m("user", ""), m("previous_response_id", "r"), m("assistant", null), m("user", "a")],
    isolated("/"),
  );
  assert.deepEqual(rc(d), ["previous_response_id:r", "assistant:null", "user:a"]);
});

Deno.test("[DIVERGE D9] compile drops skip (Ruby's clean never did)", async () => {
  const out = await compile([m("user", ""), m("skip", "x"), m("user", "a")], isolated("/"));
  assert.deepEqual(rc(out), ["user:a"]);
});

Deno.test("C9 via text: a bare clear: cuts too ([DIVERGE D8] parser keeps it)", async () => {
  assert.deepEqual(rc(await compileText("user: a\nclear:\nuser: b", isolated("/"))), ["user:b"]);
  assert.deepEqual(rc(await compileText("user: a\nclear: true\nuser: b", isolated("/"))), [
    "user:b",
  ]);
});

Deno.test("config: lines go to the store with their scope and source, and leave the chat", async () => {
  const o = isolated("/");
  const out = await compileText(
    "user: a\nconfig: max_tool_chars 5000 prompt\nconfig: epoch_size 7\nuser: b",
    { ...o, origin: "/x/session.chat" },
  );
  assert.deepEqual(rc(out), ["user:a", "user:b"]);
  assert.equal(configGet(o.config, "max_tool_chars", ["prompt"]), "5000");
  assert.equal(configGet(o.config, "max_tool_chars", ["other"]), undefined);
  assert.equal(configGet(o.config, "epoch_size", []), "7");
  assert.deepEqual(o.config.entries.map((e) => e.source), [
    "/x/session.chat:2",
    "/x/session.chat:3",
  ]);
});

Deno.test("config: before a clear never runs", async () => {
  const o = isolated("/");
  await compileText("config: a 1\nclear: x\nuser: b", o);
  assert.equal(o.config.entries.length, 0);
});

Deno.test("config: with a key only adds a nil entry, as Ruby's Scout::Config.set (R80-5)", async () => {
  const o = isolated("/");
  const out = await compileText("user: hi\nconfig: lonely", { ...o, name: "<stdin>" });
  assert.deepEqual(rc(out), ["user:hi"]);
  assert.deepEqual(o.config.entries, [
    { key: "lonely", value: null, tokens: [], source: "<stdin>:2" },
  ]);
  assert.equal(configGet(o.config, "lonely"), null);
});

Deno.test("config: without a scope is read by no scoped lookup, as in Ruby (R80-1)", async () => {
  const o = isolated("/");
  await compileText("config: endpoint fromchat\n\nuser: hi\n", o);
  // Ruby: LLM.chat(…); Scout::Config.get(:endpoint, :ask, :llm) → nil
  assert.equal(configGet(o.config, "endpoint", ["ask", "llm"]), undefined);
  assert.equal(configGet(o.config, "endpoint"), "fromchat");
  await compileText("config: endpoint scoped ask\n\nuser: hi\n", o);
  assert.equal(configGet(o.config, "endpoint", ["ask", "llm"]), "scoped");
});

Deno.test("[DIVERGE D7] an unknown role fails, naming the role, file and line", async () => {
  await assert.rejects(
    compileText("user:\n\nsee this\ntodo: fix it\n", { ...isolated("/"), name: "notes.chat" }),
    (e) => {
      assert.ok(isScoutError(e, "unknown_role"));
      assert.match(e.message, /^Unknown role "todo"/);
      assert.equal(e.file, "notes.chat");
      assert.equal(e.line, 4);
      return true;
    },
  );
  // the port's grammar keeps http: as a role (P15): compile refuses to send it
  await assert.rejects(
    compileText("user:\n\nsee\nhttp://example.com\n", isolated("/")),
    (e) => isScoutError(e, "unknown_role") && e.line === 4,
  );
});

Deno.test("the role allow-list: option and config key allow_roles", async () => {
  const text = "user: a\ntodo: fix\nnote: x";
  const viaOption = await compileText(text, { ...isolated("/"), allowRoles: ["todo", "note"] });
  assert.deepEqual(rc(viaOption), ["user:a", "todo:fix", "note:x"]);
  const o = isolated("/");
  addConfigEntry(o.config, { key: "allow_roles", value: "todo,note", tokens: ["chat"] });
  assert.deepEqual(rc(await compileText(text, o)), ["user:a", "todo:fix", "note:x"]);
});

Deno.test("roles are normalised to strings; the input messages are never modified", async () => {
  const weird = { role: 7 as unknown as string, content: "x" };
  await assert.rejects(compile([weird], isolated("/")), (e) => isScoutError(e, "unknown_role"));
  const out = await compile([weird], { ...isolated("/"), allowRoles: ["7"] });
  assert.deepEqual(out, [{ role: "7", content: "x" }]);
  assert.equal(weird.role, 7);
  const input: Message[] = [m("user", "hi"), m("skip", "s"), m("clear", "c"), m("pdf", "x.pdf")];
  const copy = structuredClone(input);
  await compile(input, isolated("/")).catch(() => {}); // x.pdf does not exist: fails late
  assert.deepEqual(input, copy);
});

Deno.test("toMessages: text is parsed, array strings become user messages", () => {
  assert.deepEqual(toMessages("user: hi"), [m("user", ""), m("user", "hi")]);
  assert.deepEqual(toMessages(["q", m("system", "s")]), [m("user", "q"), m("system", "s")]);
});

Deno.test("compile accepts strings in the list (as user messages)", async () => {
  assert.deepEqual(rc(await compile(["hello", m("assistant", "yo")], isolated("/"))), [
    "user:hello",
    "assistant:yo",
  ]);
});

Deno.test("recompiling a compiled chat changes nothing", async () => {
  await using t = await tree({
    "main.chat": "system:\n\nS\n\nimport: part.chat\n\nfile: notes.txt\n\nuser: go\n",
    "part.chat": "user: from part\n",
    "notes.txt": "n1\n",
  });
  const o = isolated(t.path);
  const once = await compileFile("main.chat", o);
  const twice = await compile(once, o);
  assert.deepEqual(twice, once);
});

Deno.test("compileFile: a missing file names the path as given", async () => {
  await using t = await tree({});
  await assert.rejects(
    compileFile("nope.chat", isolated(t.path)),
    (e) => isScoutError(e, "not_found") && e.file === "nope.chat" && /"nope\.chat"/.test(e.message),
  );
});

Deno.test("loadRaw stays a pure parse: nothing is imported, read or applied", async () => {
  await using t = await tree({
    "main.chat": "import: missing.chat\nfile: nothing.txt\nconfig: a b\ntask: Wf t\nuser: hi\n",
  });
  const raw = await loadRaw(t.at("main.chat"));
  assert.deepEqual(rc(raw), [
    "user:",
    "import:missing.chat",
    "file:nothing.txt",
    "config:a b",
    "task:Wf t",
    "user:hi",
  ]);
});

Deno.test("compile touches the process's store of its cwd and env only when no store is given", async () => {
  const { processConfig } = await import("../../src/config/process_config.ts");
  const env = { SCOUT_HOME: "/nonexistent-scout-home" };
  const store = processConfig(env, "/");
  const before = store.entries.length;
  await compileText("config: compile_test_key v\nuser: x", { cwd: "/", env });
  assert.equal(store.entries.length, before + 1);
  assert.equal(configGet(store, "compile_test_key"), "v");
  await compileText("config: other_key v\nuser: x", isolated("/"));
  assert.equal(store.entries.length, before + 1);
});

Deno.test("compile leaves options, tool declarations, meta, ids and agent roles untouched", async () => {
  const roles = [
    "option",
    "sticky_option",
    "endpoint",
    "model",
    "backend",
    "agent",
    "persist",
    "format",
    "previous_response_id",
    "meta",
    "socialize",
    "websearch",
    "tool",
    "introduce",
    "mcp",
    "kb",
    "association",
    "clear_associations",
  ];
  const input = roles.map((r) => m(r, `${r} value`));
  const out = await compile(input, isolated("/"));
  assert.deepEqual(out, input);
  assert.equal(out[0], input[0]); // same objects: nothing copied or rewritten
});
