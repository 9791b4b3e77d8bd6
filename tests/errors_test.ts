import assert from "node:assert/strict";
import { thrownMessage } from "../src/errors.ts";

Deno.test("thrownMessage describes any thrown value and never throws (R75-2)", () => {
  assert.equal(thrownMessage(new Error("boom")), "boom");
  assert.equal(thrownMessage(new Error()), "Error");
  assert.equal(thrownMessage(new TypeError("")), "TypeError");
  assert.equal(thrownMessage({ code: 42 }), '{"code":42}');
  assert.equal(thrownMessage({ message: "plain" }), "plain");
  assert.equal(thrownMessage(Object.create(null)), "{}");
  assert.equal(thrownMessage("text"), "text");
  assert.equal(thrownMessage(7), "7");
  assert.equal(thrownMessage(undefined), "undefined");
  assert.equal(thrownMessage(Symbol("s")), "Symbol(s)");
  const cyclic: Record<string, unknown> = Object.create(null);
  cyclic.self = cyclic;
  assert.equal(thrownMessage(cyclic), "[object Object]");
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  assert.equal(typeof thrownMessage(proxy), "string");
  assert.equal(thrownMessage({ big: "x".repeat(5000) }).length, 1000);
});

Deno.test("thrownMessage cuts a long thrown value before an emoji, not inside it (R151-7)", () => {
  const text = thrownMessage("x".repeat(998) + "😀".repeat(5));
  assert.ok(text.isWellFormed(), JSON.stringify(text.slice(-3)));
  assert.equal(text, "x".repeat(998) + "…");
  assert.equal(thrownMessage("x".repeat(1001)), "x".repeat(999) + "…");
});
