/**
 * The MCP client against SDK servers (real processes) that stretch it: a
 * `tools/list` cursor that never ends (R96-4), an HTTP server that dies while
 * its reply streams (R96-5), tool names a provider would refuse (R96-6) and a
 * long tool that reports progress within the timeout (R96-9).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assembleTools } from "../../src/tools/assemble.ts";
import { runToolCalls } from "../../src/tools/dispatch.ts";
import { mcpToolResolver } from "../../src/tools/mcp/resolver.ts";
import { emptyConfig, parseConfigText } from "../../src/config/store.ts";
import type { ConfigStore } from "../../src/config/store.ts";
import { DENO, ROOT } from "../support/cli.ts";
import type { Message } from "../../src/chat/types.ts";
import type { ToolRegistry } from "../../src/tools/types.ts";

const SERVER = join(ROOT, "tests/support/mcp_server.ts");
const STDIO = `${DENO} run -A ${SERVER}`;

function mcpLine(...tokens: string[]): Message[] {
  return [{ role: "mcp", content: tokens.join(" ") }, { role: "user", content: "hi" }];
}

function configWith(text: string): ConfigStore {
  const config = emptyConfig();
  config.entries.push(...parseConfigText(text));
  return config;
}

async function call(registry: ToolRegistry, name: string, args: Record<string, unknown>) {
  const out = await runToolCalls([{ name, arguments: args, id: "c1" }], { registry });
  return JSON.parse(String(out[1]!.content)) as { content: string; error?: string };
}

/** `p`, or "late" when it has not settled within `ms`. */
function settled<T>(p: Promise<T>, ms: number): Promise<T | "late"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<"late">((r) => (timer = setTimeout(() => r("late"), ms))),
  ]);
}

for (const mode of ["repeat", "grow"] as const) {
  Deno.test(`mcp (R96-4): a tools/list cursor that never ends (${mode}) stops with one warning; the tools listed so far stay`, async () => {
    const warnings: string[] = [];
    const resolver = mcpToolResolver({ cwd: ROOT, warn: (m) => warnings.push(m) });
    try {
      const line = mcpLine("stdio", `'${STDIO} --cursor ${mode}'`);
      const out = await settled(assembleTools(line, new Map(), resolver), 30_000);
      assert.notEqual(out, "late", "the listing ends");
      if (out === "late") return;
      const names = [...out.registry.keys()];
      const pages = mode === "repeat" ? 1 : 100;
      assert.deepEqual(
        names.sort(),
        ["echo", ...Array.from({ length: pages }, (_, i) => `page${i}`)].sort(),
      );
      assert.equal(warnings.length, 1, warnings.join("\n"));
      const why = mode === "repeat"
        ? `its cursor "again" came again`
        : "still not ended after 100 pages";
      assert.match(
        warnings[0]!,
        new RegExp(
          `^MCP server ".*mcp_server\\.ts --cursor ${mode}": tools/list stopped, ${why}; the ${
            pages + 1
          } tools listed so far are used$`,
        ),
      );
      assert.equal(
        (await call(out.registry, "echo", { text: "still works" })).content,
        "still works",
      );
    } finally {
      await resolver.close();
    }
  });
}

Deno.test("mcp (R96-9): a tool running past the mcp timeout that reports progress within it succeeds; one that does not still times out", async () => {
  const resolver = mcpToolResolver({ cwd: ROOT, config: configWith("timeout 1 mcp") });
  try {
    const { registry } = await assembleTools(
      mcpLine("stdio", `'${STDIO}'`, "progress"),
      new Map(),
      resolver,
    );
    const out = await call(registry, "progress", { ms: 3000, every: 200 });
    assert.equal(out.error, undefined, out.content);
    assert.equal(out.content, "done 15 progress", "a progress token was sent");
    const quiet = await call(registry, "progress", { ms: 3000, every: 2000 });
    assert.equal(quiet.error, "error");
    assert.match(JSON.parse(quiet.content).exception, /call of "progress" failed: .*timed out/i);
  } finally {
    await resolver.close();
  }
});
