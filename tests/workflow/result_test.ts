import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  deserializeResult,
  deserializeText,
  leadingFloat,
  leadingInteger,
  readResult,
  resultExtension,
  rubyFloat,
  serializeResult,
} from "../../src/workflow/result.ts";
import { jobFile, jobLogChats, listJobFiles, writeJobFile } from "../../src/workflow/files.ts";
import { isScoutError } from "../../src/errors.ts";
import { tempDir } from "../support/cli.ts";

const text = (v: string | Uint8Array) => typeof v === "string" ? v : new TextDecoder().decode(v);

Deno.test("extensions (§2.4): json yaml tsv marshal chat, explicit wins, others none", () => {
  assert.equal(resultExtension("json"), "json");
  assert.equal(resultExtension("chat"), "chat");
  assert.equal(resultExtension("tsv"), "tsv");
  assert.equal(resultExtension("integer"), null);
  assert.equal(resultExtension("binary"), null);
  assert.equal(resultExtension("text", ".md"), "md");
});

Deno.test("rubyFloat (§8.3): .0 kept, exponent below 1e-4 and from 1e16", () => {
  const cases: [number, string][] = [
    [2, "2.0"],
    [0.5, "0.5"],
    [-1.25, "-1.25"],
    [0.0001, "0.0001"],
    [0.00001, "1.0e-05"],
    [1.234e-6, "1.234e-06"],
    [1e16, "1.0e+16"],
    [1234567890123456, "1234567890123456.0"],
    [1.5e300, "1.5e+300"],
    [0, "0.0"],
    [0.1 + 0.2, "0.30000000000000004"],
  ];
  for (const [x, want] of cases) assert.equal(rubyFloat(x), want, String(x));
});

Deno.test("serialize (§3.1) by type", () => {
  assert.equal(serializeResult("soft", "string"), "soft");
  assert.equal(serializeResult(5, "integer"), "5");
  assert.equal(serializeResult(0.5, "float"), "0.5");
  assert.equal(serializeResult(2, "float"), "2.0");
  assert.equal(serializeResult(true, "boolean"), "true");
  assert.equal(serializeResult(["a", "b", "x"], "array"), "a\nb\nx");
  assert.equal(serializeResult([1.5, 2], "float_array"), "1.5\n2.0");
  assert.equal(
    serializeResult({ batter: "Whisked 3 soft", flour: 0.5 }, "json"),
    '{"batter":"Whisked 3 soft","flour":0.5}',
  );
  assert.equal(text(serializeResult("binary", "binary")), "binary\n");
  assert.equal(text(serializeResult("x\n", "binary")), "x\n");
  assert.deepEqual(serializeResult(Uint8Array.of(1, 2), "binary"), Uint8Array.of(1, 2, 10));
  assert.equal(
    serializeResult([{ role: "assistant", content: "hi" }], "chat"),
    "\nassistant:\n\nhi",
  );
  assert.equal(serializeResult({ a: [1] }, "yaml"), "a:\n  - 1\n");
  // Ruby loads a yaml result with Psych (YAML 1.1): a "no" string must be quoted (R80-3)
  assert.equal(serializeResult({ answer: "no", n: "1_000" }, "yaml"), 'answer: "no"\nn: "1_000"\n');
  assert.throws(() => serializeResult(5, "chat"), (e) => isScoutError(e, "invalid_input"));
});

Deno.test("deserialize (§1.3 rule 1): Ruby to_i / to_f / boolean words / lines", () => {
  assert.equal(leadingInteger("3x"), 3);
  assert.equal(leadingInteger("x"), 0);
  assert.equal(leadingInteger("  -12 "), -12);
  assert.equal(leadingFloat("1.5abc"), 1.5);
  assert.equal(leadingFloat(".5"), 0.5);
  assert.equal(leadingFloat("1e3"), 1000);
  assert.equal(leadingFloat("z"), 0);
  for (
    const w of ["true", "True", "TRUE", "t", "T", "1", "yes", "Yes", "YES", "y", "Y", "ON", "on"]
  ) {
    assert.equal(deserializeText(` ${w}\n`, "boolean"), true, w);
  }
  for (const w of ["false", "no", "0", "off", "tru", ""]) {
    assert.equal(deserializeText(w, "boolean"), false, w);
  }
  assert.equal(deserializeText("  soft \n", "select"), "soft");
  assert.equal(deserializeText("  soft \n", "text"), "  soft \n");
  assert.deepEqual(deserializeText("a\nb", "array"), ["a", "b"]);
  assert.deepEqual(deserializeText("", "array"), []);
  assert.deepEqual(deserializeText("1\n2x", "integer_array"), [1, 2]);
  // Ruby's split("\n"): a file's trailing newline(s) add no empty item; inner ones stay
  assert.deepEqual(deserializeText("a\nb\n", "array"), ["a", "b"]);
  assert.deepEqual(deserializeText("a\n\nb\n\n", "array"), ["a", "", "b"]);
  assert.deepEqual(deserializeText("\n", "array"), []);
  assert.deepEqual(deserializeText("1\n2\n", "integer_array"), [1, 2]);
  // and on "\n" only: a CRLF file's items keep their "\r", as in Ruby (spec-notes/workflow.md)
  assert.deepEqual(deserializeText("a\r\nb\r\n", "array"), ["a\r", "b\r"]);
  assert.deepEqual(deserializeText("1\r\n2\r\n", "integer_array"), [1, 2]);
  assert.deepEqual(deserializeText('{"a":1}', "json"), { a: 1 });
  assert.throws(() => deserializeText("{", "json"), (e) => isScoutError(e, "json_parse"));
});

Deno.test("load results back: chat parsed (never compiled), binary raw, json parsed", async () => {
  await using d = await tempDir();
  const p = join(d.path, "r");
  // without the parser's leading empty user: the result starts with its marker (R82-8)
  writeFileSync(p, "\nmeta: job=WF/ask/Default.chat\n\nassistant:\n\nanswer");
  assert.deepEqual(await readResult(p, "chat"), [
    { role: "meta", content: "job=WF/ask/Default.chat" },
    { role: "assistant", content: "answer" },
  ]);
  writeFileSync(p, "\ntask: WF t\n");
  assert.deepEqual(await readResult(p, "chat"), [{ role: "task", content: "WF t" }]);
  // only that one: text before the first header is a message of the chat
  writeFileSync(p, "question\n\nassistant:\n\nanswer");
  assert.deepEqual(await readResult(p, "chat"), [
    { role: "user", content: "question" },
    { role: "assistant", content: "answer" },
  ]);
  assert.deepEqual(deserializeResult(Uint8Array.of(1, 10), "binary"), Uint8Array.of(1, 10));
  writeFileSync(p, "{bad");
  await assert.rejects(() => readResult(p, "json"), (e) => isScoutError(e, "json_parse"));
  await assert.rejects(
    () => readResult(join(d.path, "none"), "json"),
    (e) => isScoutError(e, "not_found"),
  );
});

Deno.test(".files API: paths inside only, atomic writes, log chats listing", async () => {
  await using d = await tempDir();
  const job = join(d.path, "WF", "t", "Default");
  assert.equal(jobFile(job, "log/agent.chat"), job + ".files/log/agent.chat");
  assert.throws(() => jobFile(job, "../x"), (e) => isScoutError(e, "invalid_input"));
  assert.throws(() => jobFile(job, "/etc/passwd"), (e) => isScoutError(e, "invalid_input"));
  assert.deepEqual(await listJobFiles(job), []);
  await writeJobFile(job, "log/society/Worker/c1.chat", "\nuser:\n\nhi");
  await writeJobFile(job, "log/agent.chat", "\nuser:\n\nhi");
  await writeJobFile(job, "log/notes.txt", "x");
  await writeJobFile(job, "artifacts/plot.svg", "<svg/>");
  assert.deepEqual(await listJobFiles(job), [
    "artifacts/plot.svg",
    "log/agent.chat",
    "log/notes.txt",
    "log/society/Worker/c1.chat",
  ]);
  assert.deepEqual(await jobLogChats(job), [
    job + ".files/log/agent.chat",
    job + ".files/log/society/Worker/c1.chat",
  ]);
});
