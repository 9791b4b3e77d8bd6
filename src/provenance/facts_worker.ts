/**
 * Entry point of the helper thread that reads chats ahead of the provenance
 * walk (see `facts_pool.ts`). The compiled binary embeds it as a second
 * entrypoint of `deno task build`.
 *
 * @module
 */
import { type MessagePort, workerData } from "node:worker_threads";
import { runHelper } from "./facts_pool.ts";

runHelper(
  workerData as {
    port: MessagePort;
    claims: Uint8Array;
    answered: Int32Array;
    walkAt: Int32Array;
    toolCalls?: boolean;
  },
);
