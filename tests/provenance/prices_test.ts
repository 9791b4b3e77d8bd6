/**
 * Reading `$SCOUT_HOME/etc/prices.yaml`: no file means no prices (costs are
 * not shown); a file that is there but cannot be read — a directory in its
 * place, no permission, a symbolic link to nothing — is an error naming it, never "no prices" (every
 * cost would quietly show `?`).
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadPrices, priceOf, pricesFile } from "../../src/provenance/prices.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { openDir, runUnprivileged, tmp } from "./support.ts";

Deno.test("loadPrices: no file is null; a directory in its place is a config error naming it", async () => {
  await using t = await tempDir();
  assert.equal(await loadPrices(t.path), null);
  // `etc` a file: no price file can be there either (ENOTDIR is "no file", as llm prov's tree reads it)
  const other = join(t.path, "other");
  mkdirSync(other);
  writeFileSync(join(other, "etc"), "not a directory");
  assert.equal(await loadPrices(other), null);
  const file = pricesFile(t.path);
  mkdirSync(file, { recursive: true });
  await assert.rejects(loadPrices(t.path), (e: Error & { code?: string; file?: string }) => {
    assert.equal(e.code, "config");
    assert.equal(e.file, file);
    assert.ok(e.message.startsWith(`Cannot read price file "${file}": EISDIR`), e.message);
    return true;
  });
});

Deno.test("loadPrices: a link to nothing in its place is a config error naming it, not no prices (R142-5)", async () => {
  await using t = await tempDir();
  const file = pricesFile(t.path);
  mkdirSync(join(t.path, "etc"));
  symlinkSync(join(t.path, "dotfiles", "prices.yaml"), file);
  // before: null — no prices, costs not shown, nothing said
  await assert.rejects(loadPrices(t.path), (e: Error & { code?: string; file?: string }) => {
    assert.equal(e.code, "config");
    assert.equal(e.file, file);
    assert.equal(e.message, `Cannot read price file "${file}": it is a symbolic link to nothing`);
    return true;
  });
});

Deno.test("loadPrices: a price file without read permission (mode 000, unprivileged reader) is an error naming it", async () => {
  await using t = await tmp();
  openDir(t.path);
  mkdirSync(join(t.path, "etc"));
  openDir(join(t.path, "etc"));
  const file = pricesFile(t.path);
  writeFileSync(file, "gpt-5-nano: {input: 0.05, output: 0.4}\n");
  chmodSync(file, 0o000);
  const out = await runUnprivileged(
    t.path,
    `import { loadPrices } from "file://$ROOT/src/provenance/prices.ts";
try {
  console.log(JSON.stringify({ prices: await loadPrices(${JSON.stringify(t.path)}) }));
} catch (e) {
  console.log(JSON.stringify({ code: e.code, file: e.file, message: e.message }));
}`,
  );
  assert.deepEqual(out, {
    code: "config",
    file,
    message: `Cannot read price file "${file}": EACCES: permission denied, open '${file}'`,
  });
});

Deno.test("llm prov with a directory where prices.yaml goes: exit 1 naming it, not costs of ?", async () => {
  await using t = await tempDir();
  const home = join(t.path, "home");
  mkdirSync(pricesFile(home), { recursive: true });
  writeFileSync(
    join(t.path, "s.chat"),
    "user: hi\n\nmeta: pt=10 ct=5 tt=15 inference_id=i1 model=gpt-5-nano\n\nassistant: hello\n",
  );
  const o = { cwd: t.path, env: { SCOUT_HOME: home, NO_COLOR: "1" } };
  for (const args of [[], ["--by", "model"]]) {
    const r = await runMain(["llm", "prov", "s.chat", ...args], o);
    assert.equal(r.code, 1, r.stdout);
    assert.match(
      r.stderr,
      new RegExp(`^scout-ai: Cannot read price file "${pricesFile(home)}": EISDIR`),
    );
  }
});

Deno.test("priceOf: an entry prices its name and the name with a date or version after it, never another model it begins (R134-2)", () => {
  const p = (input: number) => ({ input, output: input });
  const table = {
    "gpt-4o": p(2.5),
    o1: p(15),
    "gpt-4": p(30),
    "claude-sonnet-4-5": p(3),
    "claude-opus-4": p(15),
    "claude-3-5-sonnet": p(3.1),
    "claude-3-5-sonnet-20241022": p(3.2),
    "gemini-1.5-pro": p(1.25),
    "anthropic.claude-3-haiku-20240307-v1": p(0.25),
    llama3: p(0),
  };
  const priced: [string, number | null][] = [
    ["gpt-4o", 2.5],
    ["gpt-4o-2024-08-06", 2.5],
    ["gpt-4o-mini", null],
    ["gpt-4o-mini-2024-07-18", null],
    ["o1-2024-12-17", 15],
    ["o1-mini", null],
    ["o1-preview", null],
    ["gpt-4-0613", 30],
    ["gpt-4-32k", null],
    ["gpt-4-turbo", null],
    ["claude-sonnet-4-5-20250929", 3],
    ["claude-opus-4-20250514", 15],
    ["claude-opus-4-1", null],
    ["claude-opus-4-5", null],
    ["claude-3-5-sonnet@20240620", 3.1],
    ["claude-3-5-sonnet-v2@20241022", 3.1],
    ["claude-3-5-sonnet-latest", 3.1],
    ["claude-3-5-sonnet-20241022-v2:0", 3.2], // the longest entry that prices it
    ["gemini-1.5-pro-002", 1.25],
    ["gemini-1.5-pro-exp", null],
    ["anthropic.claude-3-haiku-20240307-v1:0", 0.25],
    ["llama3:latest", 0],
    ["llama3:70b", null],
  ];
  assert.deepEqual(
    priced.map(([m]) => [m, priceOf(m, table)?.input ?? null]),
    priced,
  );
});

Deno.test("llm prov --by model: gpt-4o's price does not charge gpt-4o-mini (R134-2)", async () => {
  await using t = await tempDir();
  const home = join(t.path, "home");
  mkdirSync(join(home, "etc"), { recursive: true });
  writeFileSync(pricesFile(home), "gpt-4o: {input: 2.5, output: 10}\n");
  writeFileSync(
    join(t.path, "pref.chat"),
    "user: hi\n\nmeta: pt=1000000 ct=1000000 tt=2000000 model=gpt-4o-mini backend=openai inference_id=m1\n\n" +
      "assistant: hello\n\nuser: more\n\n" +
      "meta: pt=1000000 ct=0 tt=1000000 model=gpt-4o-2024-08-06 backend=openai inference_id=m2\n\n" +
      "assistant: two\n",
  );
  const r = await runMain(["llm", "prov", "pref.chat", "--by", "model"], {
    cwd: t.path,
    env: { SCOUT_HOME: home, NO_COLOR: "1" },
  });
  assert.equal(r.code, 0, r.stderr);
  // before: `gpt-4o-mini … $12.5000`, no warning
  assert.match(r.stdout, /^gpt-4o-mini\s+1\s+1000000\s+1000000\s+2000000\s+0\s+0\s+0\s+\?$/m);
  assert.match(r.stdout, /^gpt-4o-2024-08-06\s+1\s.*\$2\.5000$/m);
  assert.match(r.stdout, /^cost: \$2\.5000 \+ \? \(1 of 2 inferences unpriced\)$/m);
  assert.match(r.stderr, /no price for gpt-4o-mini \(/);
  // why a cost fell after the upgrade: the entry that priced it before (R136-2), in every view
  const hint = 'price entry "gpt-4o" no longer prices gpt-4o-mini: an entry prices its own name ' +
    "and its dated or versioned forms (gpt-4o-2024-08-06), not every name it begins with; add an " +
    'entry "gpt-4o-mini"\n';
  assert.ok(r.stderr.endsWith(hint), r.stderr);
  const json = await runMain(["llm", "prov", "pref.chat", "--json"], {
    cwd: t.path,
    env: { SCOUT_HOME: home, NO_COLOR: "1" },
  });
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout).totals.cost.unpriced, 1);
  assert.match(json.stderr, /no price for gpt-4o-mini \(/); // before: nothing on stderr
  assert.ok(json.stderr.endsWith(hint), json.stderr);
});

Deno.test("llm prov: a misspelt key in a price entry fails the command naming the file, line, key and the near name (R134-3)", async () => {
  await using t = await tempDir();
  const home = join(t.path, "home");
  mkdirSync(join(home, "etc"), { recursive: true });
  const file = pricesFile(home);
  writeFileSync(
    join(t.path, "s.chat"),
    "user: hi\n\nmeta: pt=10 ct=5 tt=15 cct=5 inference_id=i1 model=gpt-5-nano\n\nassistant: hello\n",
  );
  const run = (text: string, ...args: string[]) => {
    writeFileSync(file, text);
    return runMain(["llm", "prov", "s.chat", ...args], {
      cwd: t.path,
      env: { SCOUT_HOME: home, NO_COLOR: "1" },
    });
  };
  // before: exit 0, no warning, the cached tokens priced at the full input rate
  for (const args of [[], ["--by", "model"], ["--json"]]) {
    const flow = await run(
      "o3: {input: 2, output: 8}\ngpt-5-nano: {input: 0.05, output: 0.40, cahced_input: 0.005}\n",
      ...args,
    );
    assert.equal(flow.code, 1, flow.stdout);
    assert.equal(
      flow.stderr,
      `scout-ai: Unknown price key "cahced_input" in gpt-5-nano; did you mean "cached_input"? ` +
        `(keys: input, cached_input, cache_write, output, reasoning) (${file}:2)\n`,
    );
  }
  // a block map under `models:`: the key's own line
  const block = await run(
    "models:\n  gpt-5-nano:\n    input: 0.05\n    output: 0.4\n    reasonning: 0.8\n",
  );
  assert.equal(block.code, 1, block.stdout);
  assert.match(
    block.stderr,
    new RegExp(
      `^scout-ai: Unknown price key "reasonning" in gpt-5-nano; did you mean "reasoning"\\? .*\\(${file}:5\\)\\n$`,
    ),
  );
  // nothing near: the valid keys only
  const far = await run("gpt-5-nano: {input: 0.05, output: 0.4, currency: usd}\n");
  assert.equal(
    far.stderr,
    `scout-ai: Unknown price key "currency" in gpt-5-nano ` +
      `(keys: input, cached_input, cache_write, output, reasoning) (${file}:1)\n`,
  );
});

Deno.test("loadPrices: an absurd price and an entry without its prices fail at their lines, names escaped (R142-7)", async () => {
  await using t = await tempDir();
  mkdirSync(join(t.path, "etc"));
  const file = pricesFile(t.path);
  const cases: [string, RegExp, number][] = [
    // 1e308 made every cost `$Infinity`
    ["gpt:\n  input: 1e308\n  output: 2\n", /^Invalid price .*: gpt\.input: "1e\+?308" \(/, 2],
    ["gpt:\n  input: 1\n  output: 2000001\n", /gpt\.output: "2000001" \(dollars per million/, 3],
    ["a: {input: 1, output: 1}\ngpt:\n  input: 1\n", /gpt needs "input" and "output" prices$/, 2],
    // a NUL or a byte that is not UTF-8 inside `output`: the key is named, escaped, at its line
    [
      "gpt:\n  input: 1\n  out\0put: 2\n",
      /^Unknown price key "out\\u0000put" in gpt; did you mean "output"\?/,
      3,
    ],
    [
      "m:\n  input: 1\n  out\xffput: 2\n",
      /^Unknown price key "out\ufffdput" in m; did you mean "output"\?/,
      3,
    ],
  ];
  for (const [text, message, line] of cases) {
    writeFileSync(file, text, "latin1");
    await assert.rejects(
      loadPrices(t.path),
      (e: Error & { code?: string; file?: string; line?: number }) => {
        assert.equal(e.code, "config");
        assert.match(e.message, message);
        assert.equal(e.file, file);
        assert.equal(e.line, line, e.message);
        return true;
      },
    );
  }
  writeFileSync(file, "gpt:\n  input: 1000000\n  output: 0\n");
  assert.deepEqual(await loadPrices(t.path), { gpt: { input: 1_000_000, output: 0 } });
});
