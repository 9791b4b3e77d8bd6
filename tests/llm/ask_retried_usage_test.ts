/**
 * A streamed attempt that reported usage and was retried keeps a meta record
 * for what it cost (R93-2): `incomplete=true` with its reason and tokens, its
 * own `inference_id`, before the next attempt's record, whose `_c` totals go
 * on from it. Its text is not kept. A cache hit replays both records (the
 * original ids), and a round that fails for good after such a retry keeps
 * both too.
 */
import assert from "node:assert/strict";
import { parseMeta } from "../../src/chat/meta.ts";
import type { Message } from "../../src/chat/types.ts";
import { ask } from "../../src/llm/ask.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { tempDir } from "../support/cli.ts";
import { opts, question } from "./ask_support.ts";

const USAGE = { pt: 500, ct: 50 };
/** Cut after the events that carry the usage (Anthropic's `message_delta`, Chat's usage chunk). */
const CUT: Record<string, number> = { anthropic: 6, openai: 4 };

const metasOf = (messages: Message[]) =>
  messages.filter((m) => m.role === "meta").map((m) => parseMeta(String(m.content)));

for (const backend of ["anthropic", "openai"]) {
  Deno.test(`${backend}: a retried attempt that reported usage keeps its meta; the chat counts both attempts once each (R93-2)`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    const steps = [
      { text: ["hi"], usage: USAGE, cutAfter: CUT[backend]! },
      { text: "hi again", usage: USAGE },
    ];
    srv.script(...steps);
    const o = opts(srv, backend, home.path, {
      stream: true,
      persist: true,
      sleep: () => Promise.resolve(),
    });
    const r = await ask(question, o);
    assert.equal(srv.requests.length, 2);
    assert.deepEqual(r.messages.map((m) => m.role), ["meta", "meta", "assistant"]);
    assert.equal(r.text, "hi again");
    const [cut, done] = metasOf(r.messages);
    assert.equal(cut!.incomplete, "true");
    assert.equal(cut!.reason, "stream_cut");
    assert.deepEqual([cut!.pt, cut!.ct, cut!.tt_c], [500, 50, 550]);
    assert.equal(done!.incomplete, undefined);
    assert.deepEqual([done!.pt, done!.ct, done!.tt_c], [500, 50, 1100]);
    assert.notEqual(cut!.inference_id, done!.inference_id);

    // a cache hit replays the same records, the original ids
    const again = await ask(question, { ...o, offline: true });
    assert.equal(again.cached, true);
    assert.deepEqual(again.messages, r.messages);
  });
}

Deno.test("a round that fails for good after a retried attempt with usage keeps both records (R93-2)", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  const cut = { text: ["hi"], usage: USAGE, cutAfter: 6 };
  srv.script(cut, cut);
  const err = await ask(
    question,
    opts(srv, "anthropic", home.path, {
      stream: true,
      max_retries: "1",
      sleep: () => Promise.resolve(),
    }),
  ).then(() => assert.fail("must fail"), (e) => e);
  const messages = err.messages as Message[];
  assert.deepEqual(messages.map((m) => m.role), ["meta", "meta", "assistant"]);
  const [first, last] = metasOf(messages);
  assert.deepEqual([first!.tt_c, last!.tt_c], [550, 1100]);
  assert.deepEqual([first!.reason, last!.reason], ["stream_cut", "stream_cut"]);
  assert.notEqual(first!.inference_id, last!.inference_id);
  assert.equal(messages[2]!.content, "hi");
});
