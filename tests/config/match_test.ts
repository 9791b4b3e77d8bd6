/**
 * Config matching against Ruby's `Scout::Config` (scout-essentials
 * `lib/scout/config.rb`: `add_entry`, `token_priority`, `match`, `get`): a
 * table of cases whose answers were taken from Ruby 3.1 running that file,
 * and a property test against a line-by-line transcription of Ruby's
 * `match`/`get` over random stores and lookups.
 */
import assert from "node:assert/strict";
import { configGet, type ConfigStore, tokenPriority } from "../../src/config/store.ts";

type Row = [key: string, value: string | null, ...tokens: string[]];

function store(rows: Row[]): ConfigStore {
  return { entries: rows.map(([key, value, ...tokens]) => ({ key, value, tokens })) };
}

// [description, entries, lookup scopes, Ruby's answer of Scout::Config.get(key, *scopes)]
const RUBY_CASES: [string, Row[], string[], string | false | null][] = [
  ["unscoped entry, scoped lookup", [["endpoint", "foo"]], ["ask", "llm"], null],
  ["unscoped entry, lookup without scopes", [["endpoint", "foo"]], [], "foo"],
  [
    "scoped entries, lookup without scopes: last wins",
    [
      ["endpoint", "a", "ask"],
      ["endpoint", "b", "llm"],
    ],
    [],
    "b",
  ],
  ["earlier lookup token wins", [["endpoint", "a", "llm"], ["endpoint", "b", "ask"]], [
    "ask",
    "llm",
  ], "b"],
  ["same token: the later entry wins", [["endpoint", "a", "ask"], ["endpoint", "b", "ask"]], [
    "ask",
    "llm",
  ], "b"],
  [
    "explicit ::5 beats an earlier token",
    [["endpoint", "a", "ask"], [
      "endpoint",
      "b",
      "llm::5",
    ]],
    ["ask", "llm"],
    "b",
  ],
  [
    "explicit ::10 ties, token order decides",
    [["endpoint", "a", "ask"], [
      "endpoint",
      "b",
      "llm::10",
    ]],
    ["ask", "llm"],
    "a",
  ],
  ["explicit ::11 loses", [["endpoint", "a", "ask::11"], ["endpoint", "b", "llm"]], [
    "ask",
    "llm",
  ], "b"],
  [
    "task: prefix (3) beats a plain token (10)",
    [["endpoint", "a", "ask"], [
      "endpoint",
      "b",
      "task:foo",
    ]],
    ["ask", "task:foo"],
    "b",
  ],
  [
    "task: (3) beats workflow: (4)",
    [["endpoint", "a", "workflow:W"], [
      "endpoint",
      "b",
      "task:foo",
    ]],
    ["workflow:W", "task:foo"],
    "b",
  ],
  ["line: (1) beats a plain token", [["endpoint", "a", "ask"], ["endpoint", "b", "line:x"]], [
    "ask",
    "line:x",
  ], "b"],
  ["line: (1) beats file: (2)", [["endpoint", "a", "line:x"], ["endpoint", "b", "file:y"]], [
    "line:x",
    "file:y",
  ], "a"],
  ["other prefixes are plain (10)", [["endpoint", "a", "foo:bar"], ["endpoint", "b", "ask"]], [
    "foo:bar",
    "ask",
  ], "a"],
  [
    "key:K::30 also carries key:K (20)",
    [["endpoint", "a", "key:endpoint::30"], [
      "endpoint",
      "b",
    ]],
    [],
    "b",
  ],
  ["key:K::1 is not read by a scoped lookup", [["endpoint", "a", "key:endpoint::1"]], [
    "ask",
  ], null],
  ["key:K as an explicit lookup token", [["endpoint", "a"]], ["key:endpoint"], "a"],
  ["a line without a value is nil", [["endpoint", null, "ask"]], ["ask"], null],
  ["an unscoped line without a value is nil", [["lonely", null]], [], null],
  ["nil", [["endpoint", "nil", "ask"]], ["ask"], null],
  ["false", [["endpoint", "false", "ask"]], ["ask"], false],
  ["::0", [["endpoint", "a", "ask::0"], ["endpoint", "b", "ask"]], ["ask"], "a"],
  ["::x is 0 (to_i)", [["endpoint", "a", "ask::x"], ["endpoint", "b", "llm"]], [
    "llm",
    "ask",
  ], "a"],
  ["::1_0 is 10 (to_i)", [["endpoint", "a", "ask::1_0"], ["endpoint", "b", "llm::9"]], [
    "ask",
    "llm",
  ], "b"],
  ["::-1", [["endpoint", "a", "ask::-1"], ["endpoint", "b", "llm::0"]], ["llm", "ask"], "a"],
  ["ask:: (empty) is plain", [["endpoint", "a", "ask::"], ["endpoint", "b", "llm"]], [
    "llm",
    "ask",
  ], "b"],
  ["an entry with two tokens", [["endpoint", "a", "llm", "ask"], ["endpoint", "b", "ask"]], [
    "ask",
    "llm",
  ], "b"],
  [
    "an entry's best priority counts",
    [["endpoint", "a", "ask", "ask::1"], [
      "endpoint",
      "b",
      "llm::1",
    ]],
    ["llm", "ask"],
    "b",
  ],
  ["a lookup token with :: matches nothing", [["endpoint", "a", "ask"]], ["ask::1"], null],
];

Deno.test("configGet answers as Ruby's Scout::Config.get on each recorded case", () => {
  for (const [what, rows, scopes, ruby] of RUBY_CASES) {
    // Ruby's nil is either "no match" (undefined here) or a nil value (null)
    const got = configGet(store(rows), rows[0]![0], scopes, { environment: {} });
    assert.equal(got ?? null, ruby, what);
  }
});

Deno.test("tokenPriority: a token spelled like an Object.prototype member is of no type (R112-5)", () => {
  // before: Object.prototype's function as the priority
  for (const t of ["constructor", "toString:x", "valueOf", "hasOwnProperty:y"]) {
    assert.deepEqual(tokenPriority(t), [t, 10]);
  }
});

Deno.test("tokenPriority: ::N, else by prefix (Ruby token_priority)", () => {
  assert.deepEqual(tokenPriority("ask"), ["ask", 10]);
  assert.deepEqual(tokenPriority("ask::3"), ["ask", 3]);
  assert.deepEqual(tokenPriority("ask::"), ["ask", 10]);
  assert.deepEqual(tokenPriority("ask::7x"), ["ask", 7]);
  assert.deepEqual(tokenPriority("workflow:W"), ["workflow:W", 4]);
  assert.deepEqual(tokenPriority("task:t"), ["task:t", 3]);
  assert.deepEqual(tokenPriority("file:f"), ["file:f", 2]);
  assert.deepEqual(tokenPriority("line:l"), ["line:l", 1]);
  assert.deepEqual(tokenPriority("key:k"), ["key:k", 20]);
  assert.deepEqual(tokenPriority("task:t::12"), ["task:t", 12]);
});

// ---- Ruby's algorithm, transcribed statement by statement ----

function rubyTokenPriority(token: string): [string, number] {
  const i = token.indexOf("::");
  const tok = i === -1 ? token : token.slice(0, i);
  const p = i === -1 ? "" : token.slice(i + 2);
  if (p !== "") return [tok, Number.parseInt(/^[+-]?\d+/.exec(p)?.[0] ?? "0", 10)];
  const type = tok.split(":")[0];
  const byType: Record<string, number> = { workflow: 4, task: 3, file: 2, line: 1, key: 20 };
  return [tok, byType[type!] ?? 10];
}

// `match`: priority → values, each entry unshifted (later entries first)
function rubyMatch(entries: [string[], string | null][], give: string) {
  const priorities = new Map<number, (string | null)[]>();
  for (const [tokens, value] of entries) {
    let best: number | null = null;
    for (const t of tokens) {
      const [tok, prio] = rubyTokenPriority(t);
      if (tok !== give) continue;
      if (best === null || best > prio) best = prio;
      if (prio > best) continue;
      if (!priorities.has(prio)) priorities.set(prio, []);
      priorities.get(prio)!.unshift(value);
    }
  }
  return priorities;
}

// `get` without env/default/file:/line: → [matched?, value]
function rubyGet(rows: Row[], key: string, scopes: string[]): [boolean, string | null] {
  const cache = rows.filter((r) => r[0] === key).map(([k, v, ...tokens]): [
    string[],
    string | null,
  ] => [tokens.includes(`key:${k}`) ? tokens : [...tokens, `key:${k}`], v]);
  const tokens = scopes.length ? scopes : [`key:${key}`];
  const priorities = new Map<number, (string | null)[]>();
  for (const token of tokens) {
    for (const [prio, values] of rubyMatch(cache, token)) {
      if (!priorities.has(prio)) priorities.set(prio, []);
      priorities.get(prio)!.push(...values);
    }
  }
  if (priorities.size === 0) return [false, null];
  const lowest = Math.min(...priorities.keys());
  return [true, priorities.get(lowest)![0]!];
}

Deno.test("property: configGet agrees with Ruby's match/get on random stores and lookups", () => {
  let seed = 20240601;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const names = ["ask", "llm", "prompt", "task:t", "workflow:W", "line:l", "file:f", "key:k"];
  const token = () => {
    const name = names[rand(names.length)]!;
    const r = rand(6);
    return r === 0 ? `${name}::${rand(25)}` : r === 1 ? `${name}::` : name;
  };
  for (let round = 0; round < 3000; round++) {
    const rows: Row[] = [];
    for (let n = rand(6); n > 0; n--) {
      const tokens = Array.from({ length: rand(4) }, token);
      rows.push([
        rand(4) === 0 ? "other" : "k",
        rand(8) === 0 ? null : `v${rows.length}`,
        ...tokens,
      ]);
    }
    const scopes = Array.from({ length: rand(4) }, () => names[rand(names.length)]!);
    const [matched, value] = rubyGet(rows, "k", scopes);
    const got = configGet(store(rows), "k", scopes, { environment: {} });
    const what = JSON.stringify({ rows, scopes });
    if (!matched) assert.equal(got, undefined, what);
    else assert.equal(got, value, what);
  }
});
