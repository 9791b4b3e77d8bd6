/**
 * Help texts that say what the code does and fit 80 columns (R94-9): the
 * ChatAnalyst result sentence, its caching, the config scope table, the
 * wrapped kb and task helps, `-h, --help` in `workflow task --help`, and the
 * Scout spellings that are accepted.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runMain } from "../support/cli.ts";

const BAKING = join(ROOT, "fixtures", "workflows", "Baking");
const o = { env: { NO_COLOR: "1", SCOUT_HOME: "/nonexistent-r94c" } };

async function help(args: string[]): Promise<string> {
  const r = await runMain(args, o);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

const flat = (s: string) => s.replace(/\s+/g, " ");

Deno.test("ChatAnalyst JSON tasks: the shape, then when complete is false (R94-9a)", async () => {
  const text = flat(await help(["workflow", "task", "ChatAnalyst", "chat_tokens", "--help"]));
  assert.match(
    text,
    /Result type: json — JSON \{schema: scout-ai\/chat-analyst, version: 3, task, file, root, complete, scopes, totals, nodes \[\{id, hidden, direct, subtree\}\], events, warnings: \[\{code, message, node\}\]\}; hidden is null, result_chat or top_level_agent_log, as chat_overview's nodes have it; totals is null and nodes and events are empty when root is null; complete is false and warnings say why when the file is missing, a directory, or some evidence \(a receipt, a log, a job\) could not be read; root is the root's node id \(chat:<path> or job:<path>\), null when the file is missing or a directory; warning codes: root_not_found and not_a_chat \(node null\)/,
  );
  const prov = flat(await help(["workflow", "task", "ChatAnalyst", "chat_provenance", "--help"]));
  assert.match(
    prov,
    /version: 3, task, file, root, complete, parts \{overview, tokens, tool_calls, agents\} \(the files its analyses are saved in\), warnings/,
  );
});

Deno.test("ChatAnalyst: cached by the file's content and path (R94-9b)", async () => {
  const text = flat(await help(["workflow", "task", "ChatAnalyst"]));
  assert.doesNotMatch(text, /cached by file path/);
  assert.match(text, /Results are cached by the file's content and path/);
});

Deno.test("config set --help: the scopes each key is read under (R94-9c)", async () => {
  const text = await help(["config", "set", "--help"]);
  assert.match(
    text,
    /^ {2}ask, llm +endpoint, backend, persist, max_tool_rounds,\n {30}max_reply_tool_calls$/m,
  );
  assert.match(text, /^ {2}<b>_ask, ask, <b> +model, key, url, request_timeout$/m);
  assert.match(text, /^ {2}mcp, tools +timeout$/m);
  assert.match(text, /^ {2}chat, compile +allow_roles$/m);
});

Deno.test("kb and task helps fit 80 columns; workflow task --help lists -h (R94-9d)", async () => {
  const cases = [
    ["kb", "--help"],
    ["workflow", "task", "--help"],
    ["workflow", "task", "ChatAnalyst", "chat_tokens", "--help"],
    ["workflow", "task", "ChatAnalyst"],
    ["workflow", "task", BAKING, "cake", "--help"],
  ];
  for (const args of cases) {
    const text = await help(args);
    for (const line of text.split("\n")) {
      // an example runs as printed; a task's usage line names the workflow as given
      if (line.startsWith("  scout-ai ") || line.startsWith("Usage: scout-ai workflow task ")) {
        continue;
      }
      assert.ok(line.length <= 80, `${args.join(" ")}: ${line}`);
    }
  }
  assert.match(await help(["workflow", "task", "--help"]), /^ {2}-h, --help +display help/m);
  assert.match(
    await help(["workflow", "task", BAKING, "cake", "--help"]),
    /^ {2}-h, --help +display help/m,
  );
});

Deno.test("the Scout spellings are named once; --nobar is documented (R94-9e)", async () => {
  const root = await help(["--help"]);
  assert.match(root, /^ {2}--nobar +draw no progress lines on stderr/m);
  assert.match(flat(root), /Also accepted: --nocolor \(Scout's spelling of --no-color\)/);
  const ask = flat(await help(["llm", "ask", "--help"]));
  assert.match(
    ask,
    /Also accepted \(Scout's spellings\): -d, --dry_run for --dry-run; -l LEVEL for --log LEVEL/,
  );
});
