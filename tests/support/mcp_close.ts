/**
 * Starts `sh -c SCRIPT` under a {@link ProcessTransport}, waits until each pid
 * file names a process, closes the transport and prints
 * `{"took": ms, "pids": {file: pid}, "running": [pid…]}` (the recorded pids
 * still running after the close; zombies count as ended). A separate process
 * run with `-A`: Deno reads `/proc` only with all permissions, which the
 * transport's zombie check needs (R78-4); the suite's `-P=test` set has them
 * since R145-4, but a run of this file alone must not depend on that.
 *
 * `tools/deno run -A tests/support/mcp_close.ts GRACE_MS SCRIPT PIDFILE…`
 */
import { ProcessTransport } from "../../src/tools/mcp/process_transport.ts";
import { recordedPids, running } from "./mcp_server.ts";

const [grace, script, ...files] = Deno.args;
const t = new ProcessTransport({
  command: "sh",
  args: ["-c", script!],
  env: Deno.env.toObject(),
  graceMs: Number(grace),
});
await t.start();
const pids: Record<string, number> = {};
const until = Date.now() + 20_000;
for (const file of files) {
  while (!(await recordedPids(file))[0] && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 25));
  }
  pids[file] = (await recordedPids(file))[0] ?? 0;
}
const t0 = performance.now();
await t.close();
const took = Math.round(performance.now() - t0);
console.log(JSON.stringify({ took, pids, running: Object.values(pids).filter(running) }));
