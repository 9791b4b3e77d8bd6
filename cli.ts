/**
 * The `scout-ai` binary entry (`deno task scout …`, or `dist/scout-ai` built by
 * `deno task build`).
 *
 * @module
 */
import { main } from "./src/cli/main.ts";
import { processIo } from "./src/cli/io.ts";
import { respawn, shouldRespawn } from "./src/cli/respawn.ts";

const args = process.argv.slice(2);
const status = shouldRespawn(args, process.env, import.meta.url) ? await respawn(args) : null;
process.exitCode = status ?? await main(args, processIo());
