import assert from "node:assert/strict";
import { join } from "node:path";
import { append, branch, extractOptions, follow, isScoutError, prepend } from "../../mod.ts";
import type { Chat } from "../../mod.ts";
import { tempDir } from "../support/cli.ts";

function msgs(...items: string[]): Chat {
  return items.map((s) => {
    const i = s.indexOf(":");
    return { role: s.slice(0, i), content: s.slice(i + 1) };
  });
}

Deno.test("follow C8: the last previous_response_id goes first, before intro", () => {
  const intro = msgs("system:s", "user:q");
  const coda = msgs(
    "assistant:a1",
    "previous_response_id:r1",
    "user:q2",
    "function_call:f",
    "previous_response_id:r2",
    "user:q3",
  );
  assert.deepEqual(
    follow(intro, coda),
    msgs("previous_response_id:r2", "system:s", "user:q", "user:q3"),
  );
  assert.equal(coda.length, 6, "inputs untouched");
});

Deno.test("follow C8: without ids → concatenation; a last id of nil → no id", () => {
  assert.deepEqual(
    follow(msgs("system:s"), msgs("user:a", "assistant:b")),
    msgs("system:s", "user:a", "assistant:b"),
  );
  assert.deepEqual(
    follow(msgs("system:s"), msgs("previous_response_id:r1", "previous_response_id:nil", "user:a")),
    msgs("system:s", "previous_response_id:r1", "previous_response_id:nil", "user:a"),
  );
});

Deno.test("follow never reads format files (id extraction only)", async () => {
  // An existing, invalid schema file: reading it would throw json_parse.
  await using dir = await tempDir();
  const bad = join(dir.path, "schema.json");
  await Deno.writeTextFile(bad, "{not json");
  assert.throws(() => extractOptions(msgs(`format:${bad}`)), (e) => isScoutError(e, "json_parse"));
  const coda = msgs(`format:${bad}`, "previous_response_id:r1", "user:a");
  assert.deepEqual(follow(msgs("system:s"), coda), [
    ...msgs("previous_response_id:r1", "system:s"),
    ...msgs("user:a"),
  ]);
});

Deno.test("append and prepend mutate in place; a single message is wrapped (D11)", () => {
  const chat = msgs("user:q");
  const same = append(chat, { role: "assistant", content: "a" });
  assert.equal(same, chat);
  assert.deepEqual(chat, msgs("user:q", "assistant:a"));
  append(chat, msgs("previous_response_id:r9", "user:more"));
  assert.deepEqual(chat, msgs("previous_response_id:r9", "user:q", "assistant:a", "user:more"));

  const c2 = msgs("user:q");
  prepend(c2, { role: "system", content: "s" }); // Ruby crashes here (D11)
  assert.deepEqual(c2, msgs("system:s", "user:q"));
  const c3 = msgs("previous_response_id:r1", "user:q");
  prepend(c3, msgs("system:s"));
  assert.deepEqual(c3, msgs("previous_response_id:r1", "system:s", "user:q"));
});

Deno.test("branch is a shallow copy", () => {
  const chat = msgs("user:q");
  const b = branch(chat);
  b.push({ role: "assistant", content: "a" });
  assert.equal(chat.length, 1);
  assert.equal(b[0], chat[0]);
});
