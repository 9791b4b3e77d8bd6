/**
 * A provider's HTML error page as the text an error quotes: entities
 * decoded, unknown ones kept as written — also one spelled like an
 * Object.prototype member (R112-5).
 */
import assert from "node:assert/strict";
import { htmlText } from "../../src/llm/body_text.ts";

Deno.test("htmlText: known entities decoded, &constructor; kept as written (R112-5)", () => {
  // before: `&constructor;` became `function Object() { [native code] }`
  assert.equal(
    htmlText("<p>Tom &amp; Jerry &lt;3 &constructor; &#65;&#x42;</p>"),
    "Tom & Jerry <3 &constructor; AB",
  );
});
