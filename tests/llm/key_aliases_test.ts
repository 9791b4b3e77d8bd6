/**
 * Key aliases of a rerun (R106-1, `src/llm/key_aliases.ts`): its keys name the
 * first run's job, a replayed reply names the rerun's (never the kept job's
 * files), a stored one the first run's; without aliases nothing changes.
 */
import assert from "node:assert/strict";
import type { Message } from "../../src/chat/types.ts";
import type { RecordedRound } from "../../src/llm/ask_loop_types.ts";
import { roundCacheKey } from "../../src/llm/cache_key.ts";
import {
  keyAliases,
  keyMessages,
  replayedRound,
  storedRound,
  withKeyAliases,
} from "../../src/llm/key_aliases.ts";

const FIRST = "/h/var/jobs/Planner/ask/Default_abc.chat";
const RERUN = "/h/var/jobs/Planner/ask/rerun-2_abc.chat";
const ALIASES = [
  { from: `${RERUN}.files`, to: `${FIRST}.files` },
  { from: RERUN, to: FIRST },
];

const told = (path: string): Message[] => [
  { role: "system", content: "You are the Planner" },
  {
    role: "system",
    content: `You are working through an ask job with path ${path} and files_dir ${path}.files.`,
  },
  { role: "user", content: "Plan a spelt loaf" },
  {
    role: "function_call",
    content: JSON.stringify({
      name: "write",
      arguments: { file: `${path}.files/notes.md` },
      id: "c1",
    }),
  },
];

const key = (messages: Message[]) =>
  roundCacheKey({
    endpoint: "e",
    backend: "openai",
    model: "m",
    params: {},
    tools: [],
    messages,
    currentMeta: {},
  });

Deno.test("a rerun's messages are keyed as the first run's; the others are the same objects", () => {
  const keyed = keyMessages(ALIASES);
  const rerun = told(RERUN);
  const out = keyed(rerun);
  assert.equal(key(out), key(told(FIRST)));
  assert.notEqual(key(rerun), key(told(FIRST)));
  assert.equal(out[0], rerun[0]); // naming no alias: not copied
  assert.equal(out[2], rerun[2]);
  assert.equal(keyed(rerun)[1], out[1]); // a copy is remembered per message
  assert.deepEqual(rerun, told(RERUN)); // the run's own messages are untouched
});

Deno.test("a replayed reply names the rerun's files, a stored one the first run's; signed thinking is kept", () => {
  const thinking = [{
    type: "thinking" as const,
    thinking: `look in ${FIRST}.files`,
    signature: "sig",
  }];
  const recorded: RecordedRound = {
    items: [
      { type: "text", text: `I will write ${FIRST}.files/notes.md` },
      {
        type: "call",
        name: "write",
        id: "c1",
        arguments: { file: `${FIRST}.files/notes.md`, n: 3 },
        thinking,
      },
      {
        type: "hosted_call",
        name: "search",
        id: "h1",
        arguments: { q: FIRST },
        output: `found ${FIRST}`,
      },
      { type: "message", message: { role: "assistant", content: `see ${FIRST}` } },
    ],
    meta: { role: "meta", content: "pt=1" },
    stamps: [],
  };
  const replayed = replayedRound(recorded, ALIASES);
  assert.deepEqual(replayed.items, [
    { type: "text", text: `I will write ${RERUN}.files/notes.md` },
    {
      type: "call",
      name: "write",
      id: "c1",
      arguments: { file: `${RERUN}.files/notes.md`, n: 3 },
      thinking,
    },
    {
      type: "hosted_call",
      name: "search",
      id: "h1",
      arguments: { q: RERUN },
      output: `found ${RERUN}`,
    },
    { type: "message", message: { role: "assistant", content: `see ${RERUN}` } },
  ]);
  assert.equal(replayed.meta, recorded.meta);
  assert.deepEqual(storedRound(replayed, ALIASES), recorded);
});

Deno.test("key aliases are in force inside withKeyAliases only, nested ones added", () => {
  assert.equal(keyAliases(), undefined);
  withKeyAliases([], () => assert.equal(keyAliases(), undefined));
  withKeyAliases([{ from: "a", to: "a" }], () => assert.equal(keyAliases(), undefined));
  withKeyAliases(ALIASES, () => {
    assert.deepEqual(keyAliases(), ALIASES);
    withKeyAliases([{ from: "x", to: "y" }], () => {
      assert.deepEqual(keyAliases(), [...ALIASES, { from: "x", to: "y" }]);
    });
  });
  assert.equal(keyAliases(), undefined);
});
