/**
 * Amazon Bedrock Runtime adapter (`bedrock`; `inference.md` backends). As in
 * Ruby, Anthropic models (`anthropic.…`, or an inference profile such as
 * `us.anthropic.…`) are called with `InvokeModel` and the Anthropic Messages
 * body (`anthropic_version: bedrock-2023-05-31`); other families go through
 * the Converse API. `bedrock_api: invoke|converse` overrides the choice.
 * Streaming uses `invoke-with-response-stream` / `converse-stream` (AWS event
 * stream framing). Requests are signed with SigV4 by `aws4fetch` (a small,
 * dependency-free signer on Web Crypto; the official SDK client would add
 * megabytes to the binary and its start-up for one signed POST).
 *
 * Ruby's Bedrock backend sent only system and user messages (no assistant
 * turns, no tool outputs' content) and no tools; this one sends the whole
 * conversation, tools and tool results, and records usage.
 *
 * @module
 */
import { AwsV4Signer } from "aws4fetch";
import { ScoutError } from "../../errors.ts";
import { reportedError } from "../errors.ts";
import { atUrl } from "../error_location.ts";
import { postJson, readReply, requestSignal } from "../http.ts";
import { notAStreamError, readNotAStream, type StreamKind } from "../stream_check.ts";
import type { Backend, BackendReply, BackendRequest, QueryContext } from "../types.ts";
import { anthropicBody, anthropicReply } from "./anthropic.ts";
import { assembleAnthropicStream } from "./anthropic_stream.ts";
import { awsCredentials } from "./aws_credentials.ts";
import { type EventStreamMessage, eventStreamMessages } from "./aws_eventstream.ts";
import { assembleConverseStream, converseBody, converseReply } from "./bedrock_converse.ts";

/** The AWS event stream of Bedrock's streaming APIs (binary frames: told by content type only). */
const AWS_EVENT_STREAM: StreamKind = {
  name: "an AWS event stream",
  contentType: /eventstream/i,
  looksLike: () => false,
};

/** `anthropic_version` of Anthropic bodies on Bedrock. */
export const BEDROCK_ANTHROPIC_VERSION = "bedrock-2023-05-31";

/**
 * Which API a model goes through: `invoke` for Anthropic models, `converse`
 * for the others.
 *
 * @param model model id, inference profile id or ARN
 * @param option the `bedrock_api` setting, if any
 * @returns the API
 */
export function bedrockApi(model: string, option?: string): "invoke" | "converse" {
  if (option === "invoke" || option === "converse") return option;
  if (option !== undefined) {
    throw new ScoutError("config", `Invalid bedrock_api: "${option}" (invoke or converse)`);
  }
  return /(^|[.:/])anthropic\./.test(model) ? "invoke" : "converse";
}

/**
 * The request url: `{base}/model/{id}/{operation}`, the model id encoded as
 * one path segment (ARNs contain `/` and `:`).
 *
 * @param base `url` setting, or `https://bedrock-runtime.{region}.amazonaws.com`
 * @param model model id
 * @param operation `invoke`, `invoke-with-response-stream`, `converse`, `converse-stream`
 * @returns the url
 */
export function bedrockUrl(base: string, model: string, operation: string): string {
  return `${base.replace(/\/+$/, "")}/model/${encodeURIComponent(model)}/${operation}`;
}

/**
 * Stream messages, with `exception` messages turned into errors typed like
 * their HTTP form (`throttlingException` retried as a 429, …).
 */
async function* checkedEvents(body: ReadableStream<Uint8Array>) {
  for await (const m of eventStreamMessages(body)) {
    if (m.headers[":message-type"] === "exception" || m.headers[":message-type"] === "error") {
      const kind = String(m.headers[":exception-type"] ?? m.headers[":error-code"] ?? "error");
      let message = new TextDecoder().decode(m.payload);
      try {
        message = JSON.parse(message).message ?? message;
      } catch { /* plain text */ }
      throw reportedError("bedrock", kind, message, true);
    }
    yield m;
  }
}

/** An Anthropic event stream on Bedrock (`chunk` events of base64 JSON) as SSE text. */
function anthropicSse(events: AsyncIterable<EventStreamMessage>): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  const it = events[Symbol.asyncIterator]();
  return new ReadableStream({
    async pull(controller) {
      for (;;) {
        const { value, done } = await it.next();
        if (done) return controller.close();
        const chunk = JSON.parse(dec.decode(value.payload)) as { bytes?: string };
        if (typeof chunk.bytes !== "string") continue;
        const json = dec.decode(Uint8Array.from(atob(chunk.bytes), (c) => c.charCodeAt(0)));
        return controller.enqueue(enc.encode(`data: ${json}\n\n`));
      }
    },
  });
}

function requestBody(req: BackendRequest, api: "invoke" | "converse", model: string) {
  if (api === "converse") return converseBody(req);
  const { model: _m, ...body } = anthropicBody(req, model);
  return { anthropic_version: BEDROCK_ANTHROPIC_VERSION, ...body };
}

async function query(req: BackendRequest, ctx: QueryContext): Promise<BackendReply> {
  const extra = ctx.settings.extra ?? {};
  const creds = awsCredentials(extra);
  const model = ctx.settings.model;
  const api = bedrockApi(model, extra.bedrock_api);
  const operation = api === "invoke"
    ? (req.stream ? "invoke-with-response-stream" : "invoke")
    : (req.stream ? "converse-stream" : "converse");
  const base = ctx.settings.url ?? `https://bedrock-runtime.${creds.region}.amazonaws.com`;
  const url = bedrockUrl(base, model, operation);
  const body = requestBody(req, api, model);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: req.stream ? "application/vnd.amazon.eventstream" : "application/json",
  };
  const signed = await new AwsV4Signer({
    method: "POST",
    url,
    headers,
    body: JSON.stringify(body),
    accessKeyId: creds.accessKeyId,
    secretAccessKey: creds.secretAccessKey,
    ...(creds.sessionToken ? { sessionToken: creds.sessionToken } : {}),
    service: "bedrock",
    region: creds.region,
  }).sign();
  const signedHeaders: Record<string, string> = {};
  signed.headers.forEach((v, k) => (signedHeaders[k] = v));
  const rs = requestSignal(ctx);
  try {
    const res = await postJson("bedrock", url, body, { headers: signedHeaders, ctx, rs });
    const framed = (res.headers.get("content-type") ?? "").includes("eventstream");
    if (req.stream && !framed) {
      throw notAStreamError("bedrock", await readNotAStream(res, res.body), AWS_EVENT_STREAM);
    }
    const raw = await readReply("bedrock", res, {
      ctx,
      rs,
      ...(req.stream
        ? {
          assemble: (b, p) =>
            api === "invoke"
              ? assembleAnthropicStream(anthropicSse(checkedEvents(b)), ctx.onDelta, p, ctx.onUsage)
              : assembleConverseStream(checkedEvents(b), ctx.onDelta, p),
        }
        : {}),
    });
    return api === "invoke" ? anthropicReply(raw, ctx.warn) : converseReply(raw, ctx.warn);
  } catch (e) {
    throw atUrl(e, base); // the regional url when none is configured
  } finally {
    rs.clear();
  }
}

/** The `bedrock` backend. */
export const bedrockBackend: Backend = {
  defaults: {
    tag: "bedrock",
    modelEnv: ["BEDROCK_MODEL_ID"],
    urlEnv: "BEDROCK_URL",
    keyEnv: [],
    extra: [
      { name: "region", env: ["AWS_REGION", "AWS_DEFAULT_REGION"] },
      { name: "access_key", env: ["AWS_ACCESS_KEY_ID"] },
      { name: "secret_key", env: ["AWS_SECRET_ACCESS_KEY"] },
      { name: "session_token", env: ["AWS_SESSION_TOKEN"] },
      { name: "aws_profile", env: ["AWS_PROFILE"] },
      { name: "bedrock_api" },
      { name: "aws_credentials_file", env: ["AWS_SHARED_CREDENTIALS_FILE"], envOnly: true },
      { name: "aws_config_file", env: ["AWS_CONFIG_FILE"], envOnly: true },
      { name: "home", env: ["HOME", "USERPROFILE"], envOnly: true },
    ],
  },
  query,
};
