/**
 * `networkReason`: a refused or reset connection and an unknown host worded
 * once for Deno's fetch (`fetch failed`, the reason on its cause) and Bun's
 * (`code` ECONNREFUSED…), naming host:port (R81-6); no descriptor left (R119-5).
 */
import assert from "node:assert/strict";
import { networkReason } from "../../src/llm/network_reason.ts";
import { networkError } from "../../src/llm/errors.ts";

const DENO_REFUSED = new TypeError("fetch failed", {
  cause: new Error(
    "error sending request for url (http://127.0.0.1:9/v1): client error (Connect): tcp connect error: Connection refused (os error 111)",
  ),
});
const BUN_REFUSED = Object.assign(
  new TypeError("ECONNREFUSED: Unable to connect. Is the computer able to access the url?"),
  { code: "ECONNREFUSED" },
);

Deno.test("networkReason: Deno's and Bun's refused connection say the same", () => {
  for (
    const e of [DENO_REFUSED, BUN_REFUSED, new Error("Connection error.", { cause: BUN_REFUSED })]
  ) {
    assert.equal(networkReason(e, "http://127.0.0.1:9/v1"), "connection refused by 127.0.0.1:9");
  }
  assert.equal(
    networkReason(BUN_REFUSED, "https://api.example/v1"),
    "connection refused by api.example:443",
  );
  assert.equal(networkReason(BUN_REFUSED), "connection refused");
});

Deno.test("networkReason: an unknown host and a reset; null for anything else", () => {
  const dns = new TypeError("fetch failed", {
    cause: new Error("client error (Connect): dns error: failed to lookup address information"),
  });
  assert.equal(networkReason(dns, "http://nohost.test:8080/"), 'host "nohost.test" not found');
  assert.equal(
    networkReason(Object.assign(new Error("x"), { code: "ENOTFOUND" }), "http://h.test/"),
    'host "h.test" not found',
  );
  assert.equal(
    networkReason(
      Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }),
      "http://h.test:81/",
    ),
    "connection reset by h.test:81",
  );
  assert.equal(networkReason(new Error("stream ended early"), "http://h.test/"), null);
  assert.equal(networkReason("text"), null);
});

Deno.test("networkError: the message names the address and the reason", () => {
  assert.equal(
    networkError("openai", DENO_REFUSED, "http://127.0.0.1:9/v1").message,
    'Cannot reach provider "openai" at http://127.0.0.1:9/v1: connection refused by 127.0.0.1:9',
  );
  assert.equal(
    networkError("openai", new Error("stream cut"), "http://127.0.0.1:9/v1").message,
    'Cannot reach provider "openai" at http://127.0.0.1:9/v1: stream cut',
  );
});

Deno.test("networkReason: no descriptor left for a socket is told as such (R119-5)", () => {
  // Bun's fetch: the code, and a hint about the url that does not apply
  const bun = Object.assign(new TypeError("EMFILE: Was there a typo in the url or port?"), {
    code: "EMFILE",
  });
  const deno = new TypeError("fetch failed", {
    cause: new Error("client error (Connect): tcp open error: Too many open files (os error 24)"),
  });
  for (const e of [bun, deno]) {
    assert.equal(
      networkReason(e, "http://h.test/"),
      "too many open files (the process's limit, ulimit -n)",
    );
  }
  const system = Object.assign(new Error("x"), { code: "ENFILE" });
  assert.equal(networkReason(system), "too many open files in the system");
  assert.equal(
    networkError("openai", bun, "http://127.0.0.1:9/v1").message,
    `Cannot reach provider "openai" at http://127.0.0.1:9/v1: too many open files (the process's limit, ulimit -n)`,
  );
});
