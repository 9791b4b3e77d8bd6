import assert from "node:assert/strict";
import { knownStrategies, preparePrompt, registerStrategy } from "../../src/prompt/prepare.ts";
import { promptSettingsFromConfig, resolvePromptSettings } from "../../src/prompt/settings.ts";
import { shortenTools } from "../../src/prompt/shorten_tools.ts";
import { shortenToolsEpoch } from "../../src/prompt/shorten_tools_epoch.ts";
import { addConfigEntry, emptyConfig } from "../../src/config/store.ts";
import { isScoutError } from "../../src/errors.ts";
import type { Message } from "../../src/chat/types.ts";
import { epoch, notation, pairs, settings } from "./support.ts";

const noEnv = { env: {} };

Deno.test("PS-11: null/undefined → shorten_tools_epoch (the default)", () => {
  const input = pairs(60);
  const expected = shortenToolsEpoch(input, settings());
  assert.deepEqual(preparePrompt(input, null, noEnv), expected);
  assert.deepEqual(preparePrompt(input, undefined, noEnv), expected);
  assert.notDeepEqual(expected, input);
});

Deno.test('PS-11: "", [] and "none" → the input (as a new list)', () => {
  const input = pairs(60);
  for (const s of ["", [], "none", " none ", ",,"]) {
    const out = preparePrompt(input, s, noEnv);
    assert.deepEqual(out, input);
    assert.notEqual(out, input);
  }
});

Deno.test('PS-11: " shorten_tools , none" = "none,shorten_tools" = shorten_tools [TS-FIX trim]', () => {
  const input = pairs(8);
  const cfg = { maxToolChars: 1, env: {} };
  const expected = shortenTools(input, resolvePromptSettings(cfg));
  assert.notDeepEqual(expected, input);
  assert.deepEqual(preparePrompt(input, " shorten_tools , none", cfg), expected);
  assert.deepEqual(preparePrompt(input, "none,shorten_tools", cfg), expected);
  assert.deepEqual(preparePrompt(input, ["none", "shorten_tools"], cfg), expected);
});

Deno.test('PS-11: "shorten_tool" → unknown_strategy listing the known names, before anything runs', () => {
  let ran = false;
  const off = registerStrategy("spy_strategy", (m) => {
    ran = true;
    return m.slice();
  });
  try {
    assert.throws(
      () => preparePrompt(pairs(2), "spy_strategy,shorten_tool"),
      (e) => {
        assert.ok(isScoutError(e, "unknown_strategy"));
        assert.equal(
          e.message,
          'Unknown prompt strategy "shorten_tool" (known: none, shorten_tools, shorten_tools_epoch, spy_strategy)',
        );
        assert.equal(e.strategy, "shorten_tool");
        return true;
      },
    );
    assert.equal(ran, false);
  } finally {
    off();
  }
  assert.deepEqual(knownStrategies(), ["none", "shorten_tools", "shorten_tools_epoch"]);
});

Deno.test("PS-11: a function is called once and its result returned as is", () => {
  const input = pairs(2);
  const result: Message[] = [{ role: "user", content: "only this" }];
  let calls = 0;
  const out = preparePrompt(input, (m) => {
    calls++;
    assert.equal(m, input);
    return result;
  });
  assert.equal(out, result);
  assert.equal(calls, 1);
});

Deno.test("non-string array entries are a config error", () => {
  assert.throws(
    () => preparePrompt([], ["none", 3 as unknown as string]),
    (e) => isScoutError(e, "config"),
  );
});

Deno.test("registered strategies compose left to right and get the settings", () => {
  const seen: number[] = [];
  const offA = registerStrategy("tag_a", (ms, s) => {
    seen.push(s.epochSize);
    return [...ms, { role: "user", content: "a" }];
  });
  const offB = registerStrategy("tag_b", (ms) => [...ms, { role: "user", content: "b" }]);
  try {
    const out = preparePrompt([{ role: "user", content: "q" }], "tag_b, tag_a", {
      epochSize: 7,
      env: {},
    });
    assert.deepEqual(out.map((m) => m.content), ["q", "b", "a"]);
    assert.deepEqual(seen, [7]);
  } finally {
    offA();
    offB();
  }
  assert.throws(() => preparePrompt([], "tag_a"), (e) => isScoutError(e, "unknown_strategy"));
});

Deno.test("built-in names cannot be replaced; malformed names are refused", () => {
  for (const name of ["none", "shorten_tools", "shorten_tools_epoch", "", "a,b", "a b"]) {
    assert.throws(() => registerStrategy(name, (m) => m.slice()), (e) => isScoutError(e, "config"));
  }
});

Deno.test("settings precedence: per-call option > config entry > env var > default", () => {
  const store = emptyConfig();
  const env = { EPOCH_SIZE: "7", EPOCH_FULL_TOOL_CALLS: "3", MAX_TOOL_CHARS: "900" };
  addConfigEntry(store, { key: "epoch_size", value: "9", tokens: ["prompt"] });
  addConfigEntry(store, { key: "epoch_full_tool_calls", value: "4", tokens: ["context"] });
  addConfigEntry(store, { key: "epoch_compacted_tool_calls", value: "5", tokens: ["other_scope"] }); // not ours
  const s = resolvePromptSettings({ store, env, epoch_size: "11" });
  assert.equal(s.epochSize, 11); // per-call beats config beats env
  assert.equal(s.epochFullToolCalls, 4); // config beats env
  assert.equal(s.maxToolChars, 900); // env
  assert.equal(s.epochCompactedToolCalls, 80); // other scope ignored → default
  assert.equal(s.epochToolCallThreshold, 50);
  assert.equal(resolvePromptSettings({ store, env }).epochSize, 9);
  assert.equal(resolvePromptSettings({ env }).epochSize, 7);
  assert.equal(resolvePromptSettings({ env: {} }).epochSize, 20);
});

Deno.test("max_tool_outputs defaults to the resolved max_tool_calls", () => {
  assert.equal(resolvePromptSettings({ env: {} }).maxToolOutputs, 40);
  assert.equal(resolvePromptSettings({ env: { MAX_TOOL_CALLS: "7" } }).maxToolOutputs, 7);
  assert.equal(resolvePromptSettings({ maxToolCalls: 5, env: {} }).maxToolOutputs, 5);
  assert.equal(
    resolvePromptSettings({ maxToolCalls: 5, env: { MAX_TOOL_OUTPUTS: "2" } }).maxToolOutputs,
    2,
  );
});

Deno.test("the settings the config or environment give beyond the defaults, as a chat line writes them (R140-1)", () => {
  assert.deepEqual(promptSettingsFromConfig({ env: {} }), {});
  // equal to the default: nothing; max_tool_outputs equal to the max_tool_calls it inherits: nothing
  const same = {
    EPOCH_SIZE: "20",
    MAX_TOOL_CHARS: " 100000",
    MAX_TOOL_CALLS: "5",
    MAX_TOOL_OUTPUTS: "5",
  };
  assert.deepEqual(promptSettingsFromConfig({ env: same }), { max_tool_calls: "5" });
  const store = emptyConfig();
  addConfigEntry(store, { key: "epoch_size", value: "2", tokens: ["prompt"] });
  const env = { EPOCH_FULL_TOOL_CALLS: "+1", EPOCH_TOOL_CALL_THRESHOLD: "4" };
  assert.deepEqual(promptSettingsFromConfig({ store, env }), {
    epoch_size: "2",
    epoch_full_tool_calls: "1",
    epoch_tool_call_threshold: "4",
  });
  // the ask's own values are not these (keyed as given), whatever the config says
  assert.deepEqual(
    promptSettingsFromConfig({ store, env, epoch_size: "3", epochFullToolCalls: 7 }),
    {
      epoch_tool_call_threshold: "4",
    },
  );
});

Deno.test("config nil/false fall back to the default; env: values are followed", () => {
  const store = emptyConfig();
  addConfigEntry(store, { key: "epoch_size", value: "nil", tokens: ["prompt"] });
  addConfigEntry(store, { key: "max_tool_chars", value: "false", tokens: ["context"] });
  addConfigEntry(store, { key: "full_tool_outputs", value: "env:MY_FULL", tokens: ["prompt"] });
  const s = resolvePromptSettings({ store, env: { EPOCH_SIZE: "3", MY_FULL: "6" } });
  assert.equal(s.epochSize, 20);
  assert.equal(s.maxToolChars, 100_000);
  assert.equal(s.fullToolOutputs, 6);
});

Deno.test("[TS-FIX] non-integer values are a config error (Ruby reads 'abc' as 0)", () => {
  for (
    const cfg of [
      { env: { EPOCH_SIZE: "abc" } },
      { env: { MAX_TOOL_CHARS: "1.5" } },
      { env: {}, epochSize: 2.5 },
      { env: {}, maxToolChars: "12abc" },
    ]
  ) {
    assert.throws(() => resolvePromptSettings(cfg), (e) => isScoutError(e, "config"));
  }
  assert.equal(resolvePromptSettings({ env: { EPOCH_SIZE: " -2 " } }).epochSize, -2);
});

Deno.test("no memoisation: settings follow the environment from one call to the next", () => {
  const input = pairs(6);
  const env: Record<string, string> = {};
  assert.deepEqual(preparePrompt(input, null, { env }), input);
  Object.assign(env, {
    EPOCH_TOOL_CALL_THRESHOLD: "4",
    EPOCH_FULL_TOOL_CALLS: "1",
    EPOCH_COMPACTED_TOOL_CALLS: "2",
    EPOCH_SIZE: "2",
  });
  const out = preparePrompt(input, null, { env });
  assert.equal(notation(out, input), notation(shortenToolsEpoch(input, epoch(4, 1, 2, 2)), input));
  delete env.EPOCH_TOOL_CALL_THRESHOLD;
  assert.deepEqual(preparePrompt(input, null, { env }), input);
});

Deno.test("process.env is the default environment (checked in a subprocess)", async () => {
  // a subprocess, so that no other test running in parallel sees the variables
  const code = `
    import { resolvePromptSettings } from "./src/prompt/settings.ts";
    const s = resolvePromptSettings();
    console.log(JSON.stringify([s.epochToolCallThreshold, s.maxToolChars]));`;
  const run = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "-q", code],
    cwd: new URL("../../", import.meta.url),
    env: { EPOCH_TOOL_CALL_THRESHOLD: "4", MAX_TOOL_CHARS: "12" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(new TextDecoder().decode(run.stderr), "");
  assert.equal(new TextDecoder().decode(run.stdout).trim(), "[4,12]");
});
