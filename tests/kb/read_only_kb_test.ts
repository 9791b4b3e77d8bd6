/**
 * A knowledge base its user cannot write (a shared, system-wide one, or
 * another user's), queried by `nobody` in a real `scout-ai` subprocess
 * (R76-5): the index is built and read under
 * `$SCOUT_HOME/var/cache/kb/<sha256 of the directory>/` instead of
 * `<kb>/.scout-ai-index/`, through `kb query` and through a `kb:` line.
 */
import assert from "node:assert/strict";
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sha256hex } from "../../src/util/hash.ts";
import { ROOT, tempDir } from "../support/cli.ts";
import { runAsNobody } from "../support/nobody.ts";
import { startProviderServer } from "../support/provider_server.ts";

const FAMILY = join(ROOT, "fixtures", "kb", "family");

Deno.test("a read-only knowledge base is queried with its index under $SCOUT_HOME/var/cache/kb/", async () => {
  await using d = await tempDir();
  chmodSync(d.path, 0o755);
  const kb = join(d.path, "family");
  cpSync(FAMILY, kb, { recursive: true, filter: (src) => !src.includes(".scout-ai-index") });
  const home = join(d.path, "home");
  mkdirSync(home);
  chmodSync(home, 0o777);
  chmodSync(kb, 0o555); // nobody's anyway when root; read-only when not
  const env = { SCOUT_HOME: home, OPENAI_API_KEY: "sk-kb" };
  const q = await runAsNobody(["kb", "query", kb, "parents", "Ada"], d.path, env);
  // before: exit 1, EACCES: permission denied, mkdir '…/family/.scout-ai-index'
  assert.equal(q.code, 0, q.stderr);
  assert.equal(q.stdout, "Ada~Bruno\tfather\nAda~Carla\tmother\n");
  assert.equal(q.stderr, "");
  assert.equal(existsSync(join(kb, ".scout-ai-index")), false);
  const cache = join(home, "var", "cache", "kb", sha256hex(kb));
  assert.deepEqual(readdirSync(cache), ["parents.idx"]);
  const again = await runAsNobody(["kb", "query", kb, "parents", "Eva"], d.path, env);
  assert.equal(again.stdout, "Eva~Fede\tfather\nEva~Gala\tmother\n");

  // through a kb: line: the model gets the associations, not the raw error
  await using srv = await startProviderServer();
  const chat = join(d.path, "q.chat");
  writeFileSync(chat, `kb: ${kb} siblings\n\nuser: Hugo's siblings?\n`);
  chmodSync(chat, 0o644);
  srv.script(
    { toolCalls: [{ name: "siblings", arguments: { entities: ["Hugo"] }, id: "c1" }] },
    { text: "Eva." },
  );
  const ask = ["llm", "ask", "-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--no-cache"];
  // -o /dev/null: the chat (not writable by nobody) is only read (-c alone appends, R149-2)
  const r = await runAsNobody([...ask, "-c", chat, "-o", "/dev/null"], d.path, env);
  assert.equal(r.code, 0, r.stderr);
  const tool = (srv.requests[1]!.body.messages as { role: string; content: string }[])
    .find((m) => m.role === "tool")!;
  assert.doesNotMatch(tool.content, /EACCES|denied/);
  assert.match(tool.content, /Hugo~/);
  assert.deepEqual(readdirSync(cache).sort(), ["parents.idx", "siblings.idx"]);
});
