/**
 * The `scout-ai` binary entry (`deno task scout …`, or `dist/scout-ai` built by
 * `deno task build`). `llm prov` in the binary runs in a tuned child of
 * itself (`src/cli/respawn.ts`), decided before the CLI is even loaded —
 * after an argument, a variable read or the working directory that is not
 * UTF-8 has stopped it (`src/cli/utf8_guard.ts`: exit 2, nothing read or written).
 *
 * @module
 */
import { setTimeout } from "node:timers";
import { respawn, shouldRespawn } from "./src/cli/respawn.ts";
import { nonUtf8Input } from "./src/cli/utf8_guard.ts";

const args = process.argv.slice(2);
const notUtf8 = await nonUtf8Input(args, process.env);
if (notUtf8 !== null) {
  process.stderr.write(`scout-ai: ${notUtf8}\n`);
  process.exitCode = 2;
} else await run(args);

/** Runs the command: in the tuned child for `llm prov` in the binary, else here. */
async function run(args: string[]): Promise<void> {
  const status = shouldRespawn(args, process.env, import.meta.url) ? await respawn(args) : null;
  if (status !== null) {
    process.exitCode = status;
    return;
  }
  const [{ main }, { processIo }] = await Promise.all([
    import("./src/cli/main.ts"),
    import("./src/cli/io.ts"),
  ]);
  const io = processIo();
  // Bun writes to a pipe asynchronously and process.exit() drops what is still queued: the
  // output is all written out first, however slow its reader (R102-1).
  await io.settle(await main(args, io));
  // A handle a library left open — an HTTP MCP server's event stream — must not keep a
  // finished command alive; a command whose loop drains exits at once, as before.
  setTimeout(() => process.exit(), 1_000).unref();
}
