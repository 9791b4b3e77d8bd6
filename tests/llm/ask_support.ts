/**
 * What the ask tests against the loopback provider share: the backends they
 * run against, a key that must never reach the disk, ask options aimed at
 * the server, and the fault tests' question, tool and sleep recorder.
 *
 * @module
 */
import type { Message } from "../../src/chat/types.ts";
import type { AskOptions } from "../../src/llm/ask.ts";
import { newSession } from "../../src/llm/meta_record.ts";
import { toolRegistry } from "../../src/tools/registry.ts";
import { TEST_AWS } from "../support/bedrock_protocol.ts";
import type { ProviderServer } from "../support/provider_server.ts";

/** Every backend that speaks HTTP to a provider. */
export const BACKENDS = ["responses", "openai", "anthropic", "ollama", "vllm"] as const;
/** The API key of these tests; it must appear nowhere on disk. */
export const KEY = "sk-loopback-SECRET-4f1c";

/** Ask options for `backend` at the loopback server, no cache, a fresh session. */
export function opts(
  srv: ProviderServer,
  backend: string,
  home: string,
  extra: AskOptions = {},
): AskOptions {
  return {
    backend,
    url: srv.url,
    model: "test-model",
    key: KEY,
    persist: false,
    env: { SCOUT_HOME: home },
    config: { entries: [] },
    session: newSession(),
    ...extra,
  };
}

/** {@link opts} for a streamed ask that does not wait between attempts, plus `extra`. */
export function streamOpts(
  srv: ProviderServer,
  backend: string,
  home: string,
  extra: AskOptions = {},
): AskOptions {
  return opts(srv, backend, home, { stream: true, sleep: recorder().sleep, ...extra });
}

/** A one-question chat. */
export const question: Message[] = [{ role: "user", content: "Hi?" }];

/** A `sleep` that records the delays asked for and returns at once. */
export function recorder() {
  const delays: number[] = [];
  return { delays, sleep: (ms: number) => (delays.push(ms), Promise.resolve()) };
}

/** One tool, `lookup`, echoing its `q`. */
export const echoTool = () =>
  toolRegistry({
    lookup: [(_n, a) => `found ${a.q}`, {
      name: "lookup",
      parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
    }],
  });

/** Options reaching an Anthropic model through Bedrock (`invoke` or `converse`) at the loopback server. */
function bedrockOpts(srv: ProviderServer, home: string, api: string): AskOptions {
  return {
    ...opts(srv, "bedrock", home),
    model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    bedrock_api: api,
    env: {
      SCOUT_HOME: home,
      AWS_ACCESS_KEY_ID: TEST_AWS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: TEST_AWS.secretAccessKey,
      AWS_REGION: TEST_AWS.region,
    },
  };
}

/** The three ways to an Anthropic model: its API, Bedrock InvokeModel (Anthropic bodies), Bedrock Converse. */
export const ANTHROPIC_ROUTES: Record<string, (srv: ProviderServer, home: string) => AskOptions> = {
  anthropic: (srv, home) => opts(srv, "anthropic", home),
  "bedrock invoke": (srv, home) => bedrockOpts(srv, home, "invoke"),
  "bedrock converse": (srv, home) => bedrockOpts(srv, home, "converse"),
};
