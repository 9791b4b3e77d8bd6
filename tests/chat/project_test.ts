/**
 * Projection and checkpoints (`provenance.md` §4.6).
 */
import assert from "node:assert/strict";
import { metaCheckpoint, project } from "../../src/chat/project.ts";
import { parseMeta } from "../../src/chat/meta.ts";
import type { Message } from "../../src/chat/types.ts";

Deno.test("project drops metas, copies messages and prepends one job marker", () => {
  const input: Message[] = [
    { role: "meta", content: "pt=1 tt=2 inference_id=a" },
    { role: "function_call", content: '{"name":"ask","id":"c"}' },
    { role: "assistant", content: "answer" },
  ];
  const out = project("Planner/ask/Default_x.chat", input);
  assert.deepEqual(out, [
    { role: "meta", content: "job=Planner/ask/Default_x.chat" },
    input[1],
    input[2],
  ]);
  assert.notEqual(out[1], input[1], "copies");
  assert.deepEqual(project("W/t/x", [{ role: "meta", content: "pt=1" }]), []);
  assert.deepEqual(project("W/t/x", []), []);
  // a short path that needs quoting survives the round trip
  const odd = project("W/t/a=b", [{ role: "assistant", content: "x" }]);
  assert.equal(parseMeta(odd[0]!.content as string).job, "W/t/a=b");
});

Deno.test("21: the checkpoint keeps _c totals past a later job marker", () => {
  const chat: Message[] = [
    { role: "meta", content: "pt=10 pt_c=10 tt_c=12" },
    { role: "assistant", content: "a" },
    { role: "meta", content: "job=Wf/t/x" },
  ];
  const cp = metaCheckpoint(chat)!;
  assert.equal(cp.job, "Wf/t/x");
  assert.equal(cp.pt_c, 10);
  assert.equal(cp.tt_c, 12);
  assert.equal(metaCheckpoint([{ role: "user", content: "q" }]), null);
});
