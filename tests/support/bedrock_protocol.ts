/**
 * Bedrock Runtime's side of the loopback provider: SigV4 checking with a
 * known test key (an implementation independent of the client's signer),
 * AWS event-stream framing, and Converse replies built from script steps.
 * `provider_server.ts` routes `/model/{id}/{operation}` here.
 */
import { createHash, createHmac } from "node:crypto";
import { crc32 } from "node:zlib";
import { json, scriptedStream } from "./http_replies.ts";
import type { Piece } from "./protocol_parts.ts";
import type { Replies } from "./provider_protocols.ts";
import type { ScriptStep } from "./provider_server.ts";
import { thinkingSignature } from "./thinking_rule.ts";

/** The key pair the loopback Bedrock accepts (AWS's documentation example). */
export const TEST_AWS = {
  accessKeyId: "AKIDEXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
  region: "us-east-1",
};

/** What SigV4 signs of a request, as received. */
export interface SignedRequest {
  method: string;
  /** Path as sent (percent-encoded once). */
  rawPath: string;
  /** Query string without `?`. */
  query: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  body: string;
}

const hex = (b: Buffer) => b.toString("hex");
const sha256 = (s: string) => hex(createHash("sha256").update(s, "utf8").digest());
const hmac = (key: string | Buffer, s: string) =>
  createHmac("sha256", key).update(s, "utf8").digest();

/** RFC 3986 encoding of everything but unreserved characters. */
function uriEncode(s: string): string {
  return [...new TextEncoder().encode(s)].map((b) => {
    const c = String.fromCharCode(b);
    return /[A-Za-z0-9\-._~]/.test(c) ? c : "%" + b.toString(16).toUpperCase().padStart(2, "0");
  }).join("");
}

/**
 * Computes the SigV4 signature of a request (non-S3 rules: each path segment
 * encoded again).
 *
 * @param r the request as received
 * @param secret the secret key
 * @param scope `date/region/service/aws4_request`
 * @param signedHeaders `;`-joined lower-case names
 * @returns the hex signature
 */
export function sigV4Signature(
  r: SignedRequest,
  secret: string,
  scope: string,
  signedHeaders: string,
): string {
  const canonicalUri = r.rawPath === "" ? "/" : r.rawPath.split("/").map(uriEncode).join("/");
  const canonicalQuery = r.query === "" ? "" : r.query.split("&").map((kv) => {
    const [k, v = ""] = kv.split("=").map((x) => uriEncode(decodeURIComponent(x)));
    return `${k}=${v}`;
  }).sort().join("&");
  const names = signedHeaders.split(";");
  const canonicalHeaders = names.map((n) =>
    `${n}:${(r.headers[n] ?? "").trim().replace(/\s+/g, " ")}\n`
  ).join("");
  const canonical = [
    r.method,
    canonicalUri,
    canonicalQuery,
    canonicalHeaders,
    signedHeaders,
    sha256(r.body),
  ].join("\n");
  const [date, region, service] = scope.split("/");
  const toSign = ["AWS4-HMAC-SHA256", r.headers["x-amz-date"], scope, sha256(canonical)].join(
    "\n",
  );
  const key = hmac(hmac(hmac(hmac("AWS4" + secret, date!), region!), service!), "aws4_request");
  return hex(hmac(key, toSign));
}

/**
 * Checks a request's `Authorization` header against the test key.
 *
 * @param r the request
 * @returns null when valid, else why not
 */
export function checkSigV4(r: SignedRequest): string | null {
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/([^,]+), ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/
      .exec(r.headers.authorization ?? "");
  if (!m) return "Missing or malformed SigV4 Authorization header";
  const [, akid, scope, signed, signature] = m;
  if (akid !== TEST_AWS.accessKeyId) {
    return `The security token included in the request is invalid (${akid})`;
  }
  if (!scope!.endsWith("/bedrock/aws4_request")) return `Wrong credential scope ${scope}`;
  if (!signed!.split(";").includes("host")) return "The host header must be signed";
  const expected = sigV4Signature(r, TEST_AWS.secretAccessKey, scope!, signed!);
  return expected === signature
    ? null
    : "The request signature we calculated does not match the signature you provided.";
}

/**
 * Encodes one event-stream message with string headers.
 *
 * @param headers header name → string value
 * @param payload payload bytes
 * @returns the framed message
 */
export function encodeEventMessage(
  headers: Record<string, string>,
  payload: Uint8Array,
): Uint8Array {
  const enc = new TextEncoder();
  const hs: number[] = [];
  for (const [k, v] of Object.entries(headers)) {
    const name = enc.encode(k);
    const value = enc.encode(v);
    hs.push(name.length, ...name, 7, value.length >> 8, value.length & 255, ...value);
  }
  const total = 12 + hs.length + payload.length + 4;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, total);
  view.setUint32(4, hs.length);
  view.setUint32(8, crc32(out.subarray(0, 8)));
  out.set(hs, 12);
  out.set(payload, 12 + hs.length);
  view.setUint32(total - 4, crc32(out.subarray(0, total - 4)));
  return out;
}

/** An event message of a Bedrock stream. */
export function eventFrame(eventType: string, data: unknown): Uint8Array {
  return encodeEventMessage(
    { ":event-type": eventType, ":content-type": "application/json", ":message-type": "event" },
    new TextEncoder().encode(JSON.stringify(data)),
  );
}

/** An exception message of a Bedrock stream. */
export function exceptionFrame(kind: string, message: string): Uint8Array {
  return encodeEventMessage(
    { ":exception-type": kind, ":content-type": "application/json", ":message-type": "exception" },
    new TextEncoder().encode(JSON.stringify({ message })),
  );
}

/** `invoke-with-response-stream` frames: each Anthropic event base64-wrapped in a `chunk`. */
export function invokeFrames(pieces: Piece[]): Uint8Array[] {
  return pieces.filter((p) => !("raw" in p)).map((p) => {
    const json = JSON.stringify((p as { data: unknown }).data);
    const bytes = btoa(String.fromCharCode(...new TextEncoder().encode(json)));
    return eventFrame("chunk", { bytes, p: "abcd" });
  });
}

/**
 * A Converse reply for a script step: the JSON body and the stream events.
 *
 * @param step the script step
 * @param nextId id generator
 * @returns body and `[eventType, data]` events
 */
export function converseReplyOf(
  step: ScriptStep,
  nextId: (prefix: string) => string,
): { json: unknown; events: [string, unknown][] } {
  const text = Array.isArray(step.text) ? step.text.join("") : step.text ?? "";
  const chunks = Array.isArray(step.text) ? step.text : text ? [text] : [];
  const content: Record<string, unknown>[] = [];
  if (step.reasoning) {
    const signature = thinkingSignature(step.reasoning);
    content.push({ reasoningContent: { reasoningText: { text: step.reasoning, signature } } });
  }
  if (step.redactedThinking) {
    content.push({ reasoningContent: { redactedContent: step.redactedThinking } });
  }
  if (text) content.push({ text });
  for (const c of step.toolCalls ?? []) {
    const input = typeof c.arguments === "string" ? JSON.parse(c.arguments) : c.arguments;
    content.push({ toolUse: { toolUseId: c.id ?? nextId("tooluse_"), name: c.name, input } });
  }
  const { pt = 10, ct = 5, cct, cwt } = step.usage ?? {};
  const usage: Record<string, number> = { inputTokens: pt, outputTokens: ct, totalTokens: pt + ct };
  if (cct !== undefined) usage.cacheReadInputTokens = cct;
  if (cwt !== undefined) usage.cacheWriteInputTokens = cwt;
  const stopReason = step.stopReason ?? (step.toolCalls?.length ? "tool_use" : "end_turn");
  const json = {
    output: { message: { role: "assistant", content } },
    stopReason,
    ...(step.usage === null ? {} : { usage }),
    metrics: { latencyMs: 1 },
  };
  const events: [string, unknown][] = [["messageStart", { role: "assistant" }]];
  content.forEach((b, i) => {
    if (b.toolUse) {
      const t = b.toolUse as Record<string, unknown>;
      events.push(["contentBlockStart", {
        contentBlockIndex: i,
        start: { toolUse: { toolUseId: t.toolUseId, name: t.name } },
      }]);
      const js = JSON.stringify(t.input);
      const half = Math.floor(js.length / 2);
      for (const part of [js.slice(0, half), js.slice(half)]) {
        events.push(["contentBlockDelta", {
          contentBlockIndex: i,
          delta: { toolUse: { input: part } },
        }]);
      }
    } else if (b.reasoningContent) {
      const rc = b.reasoningContent as Record<string, Record<string, unknown>>;
      const deltas = rc.reasoningText
        ? [{ text: rc.reasoningText.text }, { signature: rc.reasoningText.signature }]
        : [{ redactedContent: rc.redactedContent }];
      for (const reasoningContent of deltas) {
        events.push(["contentBlockDelta", { contentBlockIndex: i, delta: { reasoningContent } }]);
      }
    } else {
      for (const t of chunks) {
        events.push(["contentBlockDelta", { contentBlockIndex: i, delta: { text: t } }]);
      }
    }
    events.push(["contentBlockStop", { contentBlockIndex: i }]);
  });
  events.push(["messageStop", { stopReason }]);
  if (step.usage !== null) events.push(["metadata", { usage, metrics: { latencyMs: 1 } }]);
  return { json, events };
}

/** A Bedrock reply: JSON, or event-stream frames (cut after `cutAfter` frames). */
export function bedrockResponse(
  protocol: "bedrock" | "converse",
  step: ScriptStep,
  body: Record<string, unknown>,
  stream: boolean,
  replies: Replies,
): Response {
  const built = protocol === "bedrock"
    ? replies.anthropic(step, body)
    : converseReplyOf(step, (p) => replies.nextId(p));
  if (!stream) return json(200, built.json);
  let frames = "pieces" in built
    ? invokeFrames(built.pieces)
    : built.events.map(([type, data]) => eventFrame(type, data));
  if (step.exception) {
    frames = [...frames.slice(0, 1), exceptionFrame(step.exception.type, step.exception.message)];
  }
  return new Response(
    scriptedStream(frames, step),
    { status: 200, headers: { "content-type": "application/vnd.amazon.eventstream" } },
  );
}
