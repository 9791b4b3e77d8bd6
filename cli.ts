/**
 * The `scout-ai` binary entry (`deno task scout …`, or `dist/scout-ai` built by
 * `deno task build`). `llm prov` in the binary runs in a tuned child of
 * itself (`src/cli/respawn.ts`), decided before the CLI is even loaded.
 *
 * @module
 */
import { setTimeout } from "node:timers";
import { respawn, shouldRespawn } from "./src/cli/respawn.ts";

const args = process.argv.slice(2);
const status = shouldRespawn(args, process.env, import.meta.url) ? await respawn(args) : null;
if (status !== null) process.exitCode = status;
else {
  const [{ main }, { processIo }] = await Promise.all([
    import("./src/cli/main.ts"),
    import("./src/cli/io.ts"),
  ]);
  process.exitCode = await main(args, processIo());
  // A handle a library left open — an HTTP MCP server's event stream — must not keep a
  // finished command alive; a command whose loop drains exits at once, as before.
  setTimeout(() => process.exit(), 1_000).unref();
}
