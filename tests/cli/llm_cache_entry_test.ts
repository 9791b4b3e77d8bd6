/**
 * `llm ask` on a broken inference-cache entry (R73-5): an entry that is not
 * what the cache writes is a miss with one warning naming its file — online
 * the round is asked again and the new entry replaces it; offline the ask
 * fails `not_cached` (exit 1) and no answer is written as if complete.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "../../src/chat/parse.ts";
import { setup } from "./llm_ask_support.ts";

/** Entries the reviewer reproduced the crash and the silent empty answer with. */
const BROKEN: Record<string, string> = {
  "items that are not reply items": '{"v":2,"items":[1,null,"x"],"stamps":[],"meta":null}',
  "an item of an unknown type": '{"v":2,"items":[{"type":"tool_call"}],"stamps":[],"meta":null}',
};

const QUESTION = "How many eggs?";

/** The one entry file in the cache of `home`. */
function entryFile(home: string): string {
  const dir = join(home, "var", "cache", "ask");
  const names = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.endsWith(".json"));
  assert.equal(names.length, 1, names.join(", "));
  return join(dir, names[0]!);
}

/** The stderr lines that warn about `file`. */
const warningsAbout = (stderr: string, file: string) =>
  stderr.split("\n").filter((l) => l.includes(file) && /cache entry/.test(l));

for (const [what, broken] of Object.entries(BROKEN)) {
  Deno.test(`llm ask: a round entry with ${what} is a miss with one warning naming the file`, async () => {
    await using t = await setup();
    t.srv.script({ text: "Recorded." }, { text: "Fresh." });
    const rec = await t.run(["ask", ...t.flags, QUESTION]);
    assert.equal(rec.code, 0, rec.stderr);
    const file = entryFile(t.env.SCOUT_HOME);
    await Deno.writeTextFile(file, broken);

    const off = await t.run(["ask", ...t.flags, "--offline", "-o", "off.chat", QUESTION]);
    assert.equal(off.code, 1, off.stderr);
    assert.match(off.stderr, /Offline: no cached answer .*digest [0-9a-f]{64}/);
    assert.equal(warningsAbout(off.stderr, file).length, 1, off.stderr);
    assert.equal(t.srv.requests.length, 1, "offline sends no request");
    const offChat = parse(await Deno.readTextFile(join(t.dir.path, "off.chat")));
    assert.equal(offChat.some((m) => m.role === "assistant"), false);
    assert.equal(await Deno.readTextFile(file), broken, "offline leaves the entry as it is");

    const on = await t.run(["ask", ...t.flags, "-o", "on.chat", QUESTION]);
    assert.equal(on.code, 0, on.stderr);
    assert.equal(on.stdout, "Fresh.\n");
    assert.equal(warningsAbout(on.stderr, file).length, 1, on.stderr);
    assert.equal(t.srv.requests.length, 2, "online the round is asked again");
    const onChat = parse(await Deno.readTextFile(join(t.dir.path, "on.chat")));
    assert.deepEqual(onChat.at(-1), { role: "assistant", content: "Fresh." });
    const replaced = JSON.parse(await Deno.readTextFile(file));
    assert.deepEqual(
      replaced.items,
      [{ type: "text", text: "Fresh." }],
      "the new store replaces it",
    );

    // and the replaced entry replays
    const again = await t.run(["ask", ...t.flags, "--offline", QUESTION]);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, "Fresh.\n");
    assert.equal(again.stderr, "");
  });
}
