/**
 * Text tables, help and listings pad their columns by terminal columns, not
 * UTF-16 units (R162-3): with CJK (two columns a character), a combining
 * accent (none) and a ZWJ family emoji (two for seven code points) in one
 * column, the next column starts at the same place on every row. Widths
 * here are counted by hand, not by the function under test; `--json` keeps
 * the values as they are.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { displayWidth, padToWidth } from "../../src/util/display_width.ts";
import { ROOT, runMain, tempDir } from "../support/cli.ts";
import { env, userWorkflow } from "../workflow/cli_support.ts";

const FAMILY = "👨‍👩‍👧‍👦"; // 7 code points, 11 UTF-16 units, 2 columns
const MODEL = `モデル${FAMILY}`; // 3 × 2 + 2 = 8 columns (13 units)
const CAFE = "cafe\u0301"; // 4 columns (5 units)
const MULLER = "Mu\u0308ller"; // 6 columns (7 units)

/** `text` (`w` columns, counted by hand) followed by the spaces that fill `width` columns. */
function cell(text: string, w: number, width: number): string {
  return text + " ".repeat(width - w);
}

Deno.test("displayWidth and padToWidth count columns: CJK, accents, ZWJ and keycap emoji, invisibles", () => {
  const cases: [string, number][] = [
    ["abc", 3],
    ["日本", 4],
    [CAFE, 4],
    [FAMILY, 2],
    [MODEL, 8],
    ["🇸🇪", 2],
    ["1\uFE0F\u20E3", 2], // keycap
    ["\u263A", 1], // ☺ as text
    ["\u263A\uFE0F", 2], // ☺️ as emoji
    ["\u0301", 0], // an accent with nothing before it
    ["a\u200Bb", 2], // zero-width space
    ["ｱＡ", 3], // halfwidth katakana, fullwidth A
    ["\u{17000}", 2], // Tangut
    ["한국", 4],
  ];
  for (const [s, w] of cases) assert.equal(displayWidth(s), w, JSON.stringify(s));
  assert.equal(padToWidth("日本", 6), "日本  ");
  assert.equal(padToWidth(CAFE, 6), CAFE + "  ");
  assert.equal(padToWidth(MODEL, 4), MODEL); // never cut
});

Deno.test("config list: the value and scope columns line up past CJK, an accent and a ZWJ emoji", async () => {
  await using d = await tempDir();
  const o = { env: { SCOUT_HOME: d.path, NO_COLOR: "1" }, cwd: d.path };
  for (
    const args of [
      ["model", MODEL, "ask.日本"],
      ["temperature", "0.5", "ask", "スコープ"],
      ["endpoint", CAFE, "ask"],
    ]
  ) assert.equal((await runMain(["config", "set", ...args], o)).code, 0);
  const list = await runMain(["config", "list"], o);
  assert.equal(list.code, 0, list.stderr);
  const file = join(d.path, "etc", "config");
  // keys 11 columns (temperature), values 8 (MODEL), scopes 14 ([ask スコープ]: 4 kana)
  assert.deepEqual(list.stdout.split("\n").slice(1, 4), [
    `  model        ${cell(MODEL, 8, 8)}  ${cell("[ask.日本]", 10, 14)}  ${file}:1`,
    `  temperature  ${cell("0.5", 3, 8)}  ${cell("[ask スコープ]", 14, 14)}  ${file}:2`,
    `  endpoint     ${cell(CAFE, 4, 8)}  ${cell("[ask]", 5, 14)}  ${file}:3`,
  ]);
  const json = JSON.parse((await runMain(["config", "list", "--json"], o)).stdout);
  assert.deepEqual(
    json.entries.map((e: { value: string; scopes: string[] }) => [e.value, e.scopes]),
    [[MODEL, ["ask.日本"]], ["0.5", ["ask", "スコープ"]], [CAFE, ["ask"]]],
  );
});

const KITCHEN = `export default (api) => api.workflow("Kitchen", { tasks: {
  "料理": { type: "string", description: "cook",
    inputs: { "名前": api.input.string({ description: "the dish" }),
      zutat: api.input.string({ description: "an ingredient" }),
      "${CAFE}": api.input.string({ description: "a drink" }) },
    run: () => "ok" },
  plain: { type: "string", description: "nothing", run: () => "ok" },
  "${FAMILY}": { type: "string", description: "for all", run: () => "ok" } } });`;

Deno.test("workflow help: the Tasks and Inputs descriptions line up past CJK, an accent and a ZWJ emoji", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Kitchen", KITCHEN);
  const o = { cwd: d.path, env: env(d.path) };
  const wf = await runMain(["workflow", "task", "Kitchen", "--help"], o);
  assert.equal(wf.code, 0, wf.stderr);
  const tasks = wf.stdout.split("\n").filter((l) => / \[string\]$/.test(l));
  // names 5 columns wide (plain)
  assert.deepEqual(tasks, [
    `  ${cell("料理", 4, 5)}  cook [string]`,
    `  ${cell("plain", 5, 5)}  nothing [string]`,
    `  ${cell(FAMILY, 2, 5)}  for all [string]`,
  ]);
  const task = await runMain(["workflow", "task", "Kitchen", "料理", "--help"], o);
  assert.equal(task.code, 0, task.stderr);
  const inputs = task.stdout.split("\n").filter((l) => l.includes(" <string>"));
  // `--zutat <string>` is 16 columns; `--名前 <string>` 15; `--café <string>` 15
  assert.deepEqual(inputs, [
    `  ${cell("--名前 <string>", 15, 16)}  the dish`,
    `  ${cell("--zutat <string>", 16, 16)}  an ingredient`,
    `  ${cell(`--${CAFE} <string>`, 15, 16)}  a drink`,
  ]);
});

const CHAT = (model: string, endpoint: string, id: string) =>
  `user:\n\nask ${id}\n\nmeta: pt=1 ct=1 tt=2 inference_id=${id} model=${model} endpoint=${endpoint}\n\n` +
  `assistant:\n\nanswer ${id}\n\n`;

Deno.test("llm prov --by model,endpoint: the endpoint column lines up past CJK, an accent and an emoji", async () => {
  await using d = await tempDir();
  const root = join(d.path, "session.chat");
  await Deno.writeTextFile(
    root,
    CHAT(`モデル🤖`, "jp", "a") + CHAT("gpt-5-nano", "nano", "b") + CHAT(CAFE, "fr", "c"),
  );
  const o = { cwd: d.path, env: { SCOUT_HOME: join(d.path, "home"), NO_COLOR: "1" } };
  const t = await runMain(["llm", "prov", root, "--by", "model,endpoint"], o);
  assert.equal(t.code, 0, t.stderr);
  const rows = t.stdout.split("\n");
  // models 10 columns wide (gpt-5-nano); モデル🤖 is 8, café 4
  for (
    const [model, w, endpoint] of [[`モデル🤖`, 8, "jp"], ["gpt-5-nano", 10, "nano"], [
      CAFE,
      4,
      "fr",
    ]] as const
  ) {
    const row = rows.find((r) => r.startsWith(model + " "));
    assert.ok(row, t.stdout);
    assert.ok(
      row.startsWith(`${cell(model, w, 10)}  ${cell(endpoint, endpoint.length, 8)}  `),
      row,
    );
  }
  const json = await runMain(["llm", "prov", root, "--by", "model,endpoint", "--json"], o);
  assert.equal(json.code, 0, json.stderr);
  assert.ok(
    json.stdout.includes(JSON.stringify(`モデル🤖`)) && json.stdout.includes(JSON.stringify(CAFE)),
  );
});

Deno.test("kb list: the descriptions line up past CJK and an accent", async () => {
  await using d = await tempDir();
  const kb = join(d.path, "kb");
  const o = { cwd: d.path, env: { NO_COLOR: "1" } };
  const family = join(ROOT, "fixtures", "kb", "family");
  for (const name of ["親子", MULLER, "oyako"]) {
    const r = await runMain(["kb", "register", kb, name, join(family, "parents")], o);
    assert.equal(r.code, 0, r.stderr);
  }
  const l = await runMain(["kb", "list", kb], o);
  const what = "Child (Alias) -> Parent (Alias)  [Type of parent]";
  // names 6 columns wide (Müller: 7 units; 親子: 4 columns in 2 units)
  assert.deepEqual(
    l.stdout.split("\n").filter(Boolean).sort(),
    [
      `${cell(MULLER, 6, 6)}  ${what}`,
      `${cell("oyako", 5, 6)}  ${what}`,
      `${cell("親子", 4, 6)}  ${what}`,
    ].sort(),
  );
});
