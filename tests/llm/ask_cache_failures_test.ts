/**
 * What a round met besides its reply, in the inference cache (R121,
 * `src/llm/round_failure.ts`): a round whose query failed for good is stored
 * as a failure entry that only an offline replay plays (the same error, the
 * same messages kept, its snapshot under the same name), while online it is
 * a miss; a round's retries are recorded and told again when it replays. No
 * entry holds the key; a scout-ai of before failure entries reads one as
 * corrupt (a miss), never as a reply.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Message } from "../../src/chat/types.ts";
import { isScoutError, ScoutError } from "../../src/errors.ts";
import { ask } from "../../src/llm/ask.ts";
import type { AskEvent } from "../../src/llm/ask_loop_types.ts";
import { cacheDir, cacheReadEntry } from "../../src/llm/cache.ts";
import { entryProblem, ROUND_ENTRY } from "../../src/llm/cache_entry.ts";
import { lineEndingNote, missNote, placeNote } from "../../src/llm/replay_miss.ts";
import { failedRoundOf, noteFailedRound, retryNote } from "../../src/llm/round_failure.ts";
import { tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { KEY, question, streamOpts } from "./ask_support.ts";

/** The failure an ask threw. */
async function failure(p: Promise<unknown>): Promise<ScoutError & { messages?: Message[] }> {
  const e = await p.then(() => null, (e) => e);
  assert.ok(isScoutError(e), `an ask that fails, got ${e}`);
  return e;
}

/** Every entry file's text in the cache of `home`. */
function entries(home: string): string[] {
  const dir = cacheDir(home);
  return [...Deno.readDirSync(dir)].filter((e) => e.name.endsWith(".json"))
    .map((e) => Deno.readTextFileSync(join(dir, e.name)));
}

Deno.test("a round that failed for good replays offline as it failed: error, kept partial answer, snapshot name", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  // a stream cut after some text, not retried: the partial answer is kept
  srv.script({ text: ["Hel", "lo ", "wor", "ld"], cutAfter: 2, usage: { pt: 7 } });
  const o = { persist: true, max_retries: "0" };
  const live = await failure(ask(question, streamOpts(srv, "openai", home.path, o)));
  assert.equal(srv.requests.length, 1);
  assert.match(live.message, /ended early/);
  assert.ok((live.messages ?? []).some((m) => m.role === "assistant"), "a partial answer kept");
  const [text, ...more] = entries(home.path);
  assert.equal(more.length, 0);
  const entry = JSON.parse(text!);
  assert.equal(entry.failure.code, live.code);
  assert.ok(!text!.includes(KEY), "no key in the entry");
  // it is read as a failure, and a scout-ai of before failure entries finds no reply in it
  const key = [...Deno.readDirSync(cacheDir(home.path))].map((e) => e.name)
    .find((n) => n.endsWith(".json"))!.slice(0, -".json".length);
  assert.match(String(entryProblem(ROUND_ENTRY, entry)), /^items: /);
  assert.deepEqual(await cacheReadEntry(cacheDir(home.path), key), entry);

  await Deno.remove(join(home.path, "tmp"), { recursive: true });
  const replayed = await failure(
    ask(question, streamOpts(srv, "openai", home.path, { ...o, offline: true })),
  );
  assert.equal(srv.requests.length, 1, "offline: no request");
  assert.equal(replayed.message, live.message); // its snapshot's path included
  assert.equal(replayed.code, live.code);
  assert.equal(replayed.baseMessage, live.baseMessage);
  assert.deepEqual(replayed.messages, live.messages);
  assert.ok(existsSync(`${String(replayed.snapshotPath)}.chat`), "the snapshot written again");
});

Deno.test("online, a failure entry is a miss: asked again, and the answer replaces it", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ status: 400, message: "bad" }, { status: 400, message: "worse" }, { text: "Hi." });
  const o = { persist: true, max_retries: "0" };
  const first = await failure(ask(question, streamOpts(srv, "openai", home.path, o)));
  assert.match(first.message, /HTTP 400: bad/);
  const second = await failure(ask(question, streamOpts(srv, "openai", home.path, o)));
  assert.match(second.message, /HTTP 400: worse/);
  // a request failing again keeps its snapshot's name
  assert.equal(second.snapshotPath, first.snapshotPath);
  assert.match(entries(home.path)[0]!, /HTTP 400: worse/);
  const r = await ask(question, streamOpts(srv, "openai", home.path, o));
  assert.equal(r.text, "Hi.");
  assert.equal(srv.requests.length, 3);
  const [entry] = entries(home.path).map((t) => JSON.parse(t));
  assert.equal(entry.failure, undefined);
  assert.equal(entry.items[0].text, "Hi.");
});

Deno.test("a round's retries are recorded and told again, marked replayed, when it replays", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ status: 429, message: "later", retryAfter: 0 }, { text: "Hi." });
  const events = (into: AskEvent[]) => ({ persist: true, onEvent: (e: AskEvent) => into.push(e) });
  const seen: AskEvent[] = [];
  await ask(question, streamOpts(srv, "openai", home.path, events(seen)));
  const replayedSeen: AskEvent[] = [];
  const again = { ...events(replayedSeen), offline: true };
  assert.equal((await ask(question, streamOpts(srv, "openai", home.path, again))).text, "Hi.");
  const retries = (es: AskEvent[]) =>
    es.flatMap((e) =>
      e.type === "retry" ? [[e.attempt, e.delayMs, (e.error as Error).message, e.replayed]] : []
    );
  const told = retries(seen);
  assert.equal(told.length, 1);
  assert.match(String(told[0]![2]), /HTTP 429: later/);
  assert.deepEqual(retries(replayedSeen), [[...told[0]!.slice(0, 3), true]]);
});

Deno.test("a recorded failure holds no key, and only a provider failure of the round is recorded", () => {
  const state = { round: 1, history: [], meta: {}, params: {} };
  const e = new ScoutError("provider_http", `Provider "x" answered HTTP 401: bad key ${KEY}`, {
    phase: "query",
    status: 401,
    url: "http://u:pw@h/v1?key=abc",
    baseMessage: `Provider "x" answered HTTP 401: bad key ${KEY}`,
  });
  noteFailedRound(e, state, { messages: [], retries: [] }, { key: KEY });
  const failed = failedRoundOf(e, state);
  assert.ok(failed);
  const text = JSON.stringify(failed);
  assert.ok(!text.includes(KEY) && !text.includes("pw@") && !text.includes("key=abc"), text);
  assert.equal(failed.failure.fields.status, 401);
  assert.equal(failedRoundOf(e, { ...state }), null, "another round's");
  const tool = new ScoutError("io", "Cannot write");
  noteFailedRound(tool, state, { messages: [], retries: [] }, { key: KEY });
  assert.equal(failedRoundOf(tool, state), null, "not a query's failure");
  const aborted = new ScoutError("provider_http", "cut", { phase: "query" });
  const signal = AbortSignal.abort();
  noteFailedRound(aborted, state, { messages: [], retries: [] }, { key: KEY, signal });
  assert.equal(failedRoundOf(aborted, state), null, "an abort is no provider failure");
  const note = retryNote({ attempt: 1, delayMs: 0, error: new Error(`no ${KEY}`) }, KEY);
  assert.equal(note.error, "no ***");
});

Deno.test("an offline miss's note names the working directory and SCOUT_HOME its request names", () => {
  const sys = (cwd: string, home: string): Message[] => [{
    role: "system",
    content: `Your current working directory is ${cwd}.\nYou are working through an ask job ` +
      `with path ${home}/var/jobs/W/t/x.chat and files_dir ${home}/var/jobs/W/t/x.chat.files`,
  }];
  assert.equal(
    placeNote(sys("/w/run", "/w/run/home"), "/w/run/home", "/w/run"),
    'the request names the working directory "/w/run" (its physical path, symlinks resolved) ' +
      'and SCOUT_HOME "/w/run/home": if the working directory or SCOUT_HOME differs from the ' +
      "recording's, this replay asks another request",
  );
  // the home inside the working directory does not name it; a longer name is another path
  const inHome = placeNote(sys("/x", "/w/run/home"), "/w/run/home", "/w/run");
  assert.match(
    String(inHome),
    /^the request names SCOUT_HOME "\/w\/run\/home": if SCOUT_HOME differs/,
  );
  assert.equal(placeNote(sys("/w/run2", "/h2"), "/h", "/w/run"), null);
  assert.equal(placeNote([{ role: "user", content: "Hi /" }], "/h", "/"), null);
});

Deno.test("an offline miss's note names CR characters in its request's text, then the places (R152-1)", () => {
  const crlf: Message[] = [{ role: "system", content: "Line one\r\nline two in /w/run" }];
  assert.match(String(lineEndingNote(crlf)), /^the request's text holds CR \(\\r\) characters/);
  assert.equal(lineEndingNote([{ role: "system", content: "Line one\nline two" }]), null);
  const both = String(missNote(crlf, "/h", "/w/run"));
  assert.match(both, /core\.autocrlf.*"\*\.chat -text".*; the request names the working directory/);
  assert.equal(missNote([{ role: "user", content: "hi" }], "/h", "/w"), null);
});
