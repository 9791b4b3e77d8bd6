/**
 * A reply cut short for good (retries used up, the ask aborted) keeps what it
 * streamed: a meta record marked `incomplete=true` with the reason and the
 * tokens known, then the partial text — for every backend — and provenance
 * reads such records without counting tokens nobody reported.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseMeta } from "../../src/chat/meta.ts";
import { parse } from "../../src/chat/parse.ts";
import { print } from "../../src/chat/print.ts";
import type { Message } from "../../src/chat/types.ts";
import { isScoutError } from "../../src/errors.ts";
import { ask, type AskOptions } from "../../src/llm/ask.ts";
import { incompleteText } from "../../src/llm/loop.ts";
import { provenanceTokenTotals } from "../../src/provenance/tokens.ts";
import { type ProviderServer, startProviderServer } from "../support/provider_server.ts";
import { tempDir } from "../support/cli.ts";
import { BACKENDS, opts } from "./ask_support.ts";

const question: Message[] = [{ role: "user", content: "Tell me" }];
const TEXT = ["Part ", "one. ", "Part ", "two. ", "Part ", "three."];

/** Streamed asks; a retry does not wait. */
function streamed(srv: ProviderServer, backend: string, home: string, extra: AskOptions = {}) {
  return opts(srv, backend, home, { stream: true, sleep: () => Promise.resolve(), ...extra });
}

for (const backend of BACKENDS) {
  Deno.test(`${backend}: retries used up on a cut stream keep the last attempt's text, marked incomplete`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    // two attempts, both cut after 6 events; the kept text is the second one's
    srv.script({ text: TEXT, cutAfter: 6 }, { text: TEXT, cutAfter: 6 });
    let attempt = "";
    const err = await ask(
      question,
      streamed(srv, backend, home.path, {
        max_retries: "1",
        onEvent: (e) => {
          if (e.type === "retry") attempt = "";
          if (e.type === "text") attempt += e.delta;
        },
      }),
    ).then(() => assert.fail("must fail"), (e) => e);
    assert.ok(isScoutError(err, "provider_http"), String(err));
    let messages = err.messages as Message[];
    if (backend === "anthropic") {
      // the first attempt reported its prompt tokens (message_start): its record stays (R93-2)
      assert.deepEqual(messages.map((m) => m.role), ["meta", "meta", "assistant"]);
      assert.equal(parseMeta(String(messages[0]!.content)).pt, 10);
      messages = messages.slice(1);
    }
    assert.deepEqual(messages.map((m) => m.role), ["meta", "assistant"]);
    assert.ok(attempt.length > 0 && "Part one. Part two. Part three.".startsWith(attempt));
    assert.equal(messages[1]!.content, attempt.trim());
    assert.equal(incompleteText(messages), attempt.trim());
    const meta = parseMeta(String(messages[0]!.content));
    assert.equal(meta.incomplete, "true");
    assert.equal(meta.reason, "stream_cut");
    assert.equal(typeof meta.inference_id, "string");
    assert.equal(typeof meta.timestamp, "string");
    if (backend === "anthropic") {
      // message_start carried the prompt tokens: they were spent, they are counted
      assert.equal(meta.pt, 10);
    } else {
      assert.equal(meta.pt, undefined);
      assert.equal(meta.tt_c, 0);
    }
  });

  Deno.test(`${backend}: an aborted stream keeps the text so far with reason=interrupted`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    srv.script({ text: TEXT, stallAfter: 6 });
    const ac = new AbortController();
    let seen = "";
    const err = await ask(
      question,
      streamed(srv, backend, home.path, {
        signal: ac.signal,
        onEvent: (e) => {
          if (e.type !== "text") return;
          seen += e.delta;
          if (seen.includes("one. ")) {
            setTimeout(() => ac.abort(new DOMException("Interrupted", "AbortError")), 50);
          }
        },
      }),
    ).then(() => assert.fail("must fail"), (e) => e);
    assert.equal(err.name, "AbortError");
    const messages = err.messages as Message[];
    assert.deepEqual(messages.map((m) => m.role), ["meta", "assistant"]);
    assert.equal(messages[1]!.content, seen.trim());
    assert.match(seen, /^Part one\. /);
    assert.equal(parseMeta(String(messages[0]!.content)).reason, "interrupted");
  });
}

Deno.test("nothing streamed before the failure: no incomplete record", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ status: 500 });
  const err = await ask(question, streamed(srv, "openai", home.path, { max_retries: "0" }))
    .then(() => assert.fail("must fail"), (e) => e);
  assert.deepEqual(err.messages, []);
});

Deno.test("provenance reads incomplete records: tokens only where reported, no crash without", async () => {
  await using dir = await tempDir();
  const chat = (metas: string[]) =>
    print([
      { role: "user", content: "q" },
      ...metas.flatMap((m) => [{ role: "meta", content: m }, {
        role: "assistant",
        content: "a",
      }]),
    ]);
  const none = join(dir.path, "none.chat");
  await Deno.writeTextFile(
    none,
    chat([
      "incomplete=true reason=interrupted inference_id=i1 pt_c=0 ct_c=0 tt_c=0 cct_c=0 cwt_c=0 rt_c=0",
    ]),
  );
  assert.equal(parse(await Deno.readTextFile(none)).filter((m) => m.role === "meta").length, 1);
  const t0 = provenanceTokenTotals(none, { onError: (e) => assert.fail(String(e)) });
  assert.deepEqual([t0.pt, t0.ct, t0.tt], [0, 0, 0]);
  const some = join(dir.path, "some.chat");
  await Deno.writeTextFile(
    some,
    chat([
      "pt=7 ct=2 tt=9 inference_id=i1",
      "pt=12 incomplete=true reason=stream_cut inference_id=i2",
    ]),
  );
  const t1 = provenanceTokenTotals(some, { onError: (e) => assert.fail(String(e)) });
  assert.deepEqual([t1.pt, t1.ct, t1.tt], [19, 2, 9]);
});

Deno.test("the kept partial is trimmed as the chat format trims (ASCII only): U+3000 and U+00A0 stay, and it reads back the same (R86-5)", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  const text = ["\u00a0Part ", "one.\u3000", "\n"];
  srv.script({ text, cutAfter: 6 });
  const err = await ask(question, streamed(srv, "openai", home.path, { max_retries: "0" }))
    .then(() => assert.fail("must fail"), (e) => e);
  const messages = err.messages as Message[];
  assert.equal(messages[1]!.content, "\u00a0Part one.\u3000");
  assert.equal(incompleteText(messages), "\u00a0Part one.\u3000");
  assert.deepEqual(parse(print(messages)).at(-1), messages[1]);
});

// role, text, finish and usage chunks sent, then reset where `[DONE]` would be
const CUT_AFTER_USAGE = { text: ["hi"], usage: { pt: 500, ct: 50 }, cutAfter: 4 };

for (const backend of ["openai", "huggingface", "openwebui"]) {
  Deno.test(`${backend}: a Chat Completions stream cut after its usage chunk keeps that usage (R93-1)`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    srv.script(CUT_AFTER_USAGE);
    const url = backend === "openwebui" ? `${srv.url}/api` : srv.url;
    const err = await ask(
      question,
      streamed(srv, backend, home.path, { max_retries: "0", url }),
    ).then(() => assert.fail("must fail"), (e) => e);
    const messages = err.messages as Message[];
    assert.deepEqual(messages.map((m) => m.role), ["meta", "assistant"]);
    const meta = parseMeta(String(messages[0]!.content));
    assert.equal(meta.reason, "stream_cut");
    assert.deepEqual([meta.pt, meta.ct, meta.tt_c], [500, 50, 550]);
  });
}
