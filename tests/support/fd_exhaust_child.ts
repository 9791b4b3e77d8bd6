/**
 * A child process for the descriptor-exhaustion tests
 * (`tests/cli/ask_out_of_descriptors_test.ts`): runs `scout-ai llm ask -o`
 * in-process against a loopback provider of its own, whose reply first opens
 * `/dev/null` until this process has no descriptor left (a real `EMFILE`,
 * under the `ulimit -n` the test's shell set) — the answer arrives over the
 * connection already open, and the save that follows finds none free. With a
 * number of milliseconds, the descriptors are closed again after that long
 * (a save that waits gets them); with `never`, not before the run ends.
 *
 * `deno run -A fd_exhaust_child.ts <dir> <ms|never>` prints
 * `{ code, stdout, stderr }` as JSON.
 *
 * @module
 */
import { closeSync, openSync } from "node:fs";
import { join } from "node:path";
import { runMain } from "./cli.ts";
import { startProviderServer } from "./provider_server.ts";

const [dir, release] = Deno.args as [string, string];
const held: number[] = [];

// Deno sets up its signal handling (a self-pipe) at the first signal listener, and panics when
// that finds no descriptor free: set up here, before the descriptors run out
const noop = () => {};
Deno.addSignalListener("SIGWINCH", noop);
Deno.removeSignalListener("SIGWINCH", noop);

/** Opens `/dev/null` until the process's limit is reached. */
function exhaust(): void {
  for (;;) {
    try {
      held.push(openSync("/dev/null", "r"));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EMFILE") break;
      throw e;
    }
  }
  if (release !== "never") setTimeout(freeAll, Number(release));
}

function freeAll(): void {
  for (const fd of held.splice(0)) closeSync(fd);
}

const srv = await startProviderServer({
  fallback: () => {
    exhaust();
    return { text: "the answer" };
  },
});
const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "test-model", "--no-cache"];
const env = { SCOUT_HOME: join(dir, "home"), OPENAI_API_KEY: "sk-x" };
const r = await runMain(["llm", "ask", ...flags, "-o", "out.chat", "Capital of France?"], {
  env,
  cwd: dir,
});
freeAll();
await srv.close();
console.log(JSON.stringify(r));
