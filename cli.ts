/**
 * The `scout-ai` binary entry (`deno task scout …`, or `dist/scout-ai` built by
 * `deno task build`).
 *
 * @module
 */
import { main } from "./src/cli/main.ts";
import { processIo } from "./src/cli/io.ts";

process.exitCode = await main(process.argv.slice(2), processIo());
