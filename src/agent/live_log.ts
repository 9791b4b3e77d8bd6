/**
 * A chat task's agent logs written as the run goes (R106-3, `agents.md`
 * §4.4): after every inference paid inside the run (each round of the agent
 * and of every specialist), the log files are printed again from the live
 * chats plus what the running asks paid so far ({@link inFlight}), and those
 * whose text changed are written atomically. A process killed by SIGKILL —
 * no `finally`, no signal handler — so leaves logs holding every paid
 * inference, which `llm prov` counts. The final {@link logAgent} writes the
 * same files once the run ends; {@link LiveLog.idle} lets it wait for the
 * last checkpoint first, so a checkpoint never lands after it.
 *
 * @module
 */
import { print } from "../chat/print.ts";
import { writeJobFile } from "../workflow/files.ts";
import type { JobContext } from "../workflow/job_types.ts";
import { agentLogFiles, type LoggableAgent } from "./log.ts";

/** A log writer bound to one agent of one job. */
export interface LiveLog {
  /**
   * Schedules a rewrite of the changed log files (called after each meta record).
   *
   * @returns resolves once that rewrite is done (or reported as failed)
   */
  onPaid(): Promise<void>;
  /** Resolves once every scheduled rewrite is done. */
  idle(): Promise<void>;
}

/**
 * A writer of an agent's logs for checkpoints during its run. Rewrites are
 * serialized, one per paid inference; a file whose printed text is the one
 * last written is not written again. A failed write is reported to the job
 * and never fails the run (the final log still follows).
 *
 * @param job the running job's context
 * @param agent the agent being run
 * @param subdir optional sub-directory of `log/`
 * @returns the writer
 */
export function liveLog(job: JobContext, agent: LoggableAgent, subdir?: string): LiveLog {
  const written = new Map<string, string>();
  let chain: Promise<void> = Promise.resolve();
  const write = async (files: [string, string][]): Promise<void> => {
    for (const [rel, text] of files) {
      if (written.get(rel) === text) continue;
      await writeJobFile(job.path, rel, text);
      written.set(rel, text);
    }
  };
  const report = (e: unknown) =>
    job.message(`Cannot write the agent logs: ${(e as Error).message}`).catch(() => {});
  return {
    onPaid() {
      // printed now, as the chats stand when the meta arrived; written in order
      let files: [string, string][];
      try {
        files = agentLogFiles(agent, subdir).map(([rel, m]) => [rel, print(m)]);
      } catch (e) {
        chain = chain.then(() => report(e));
        return chain;
      }
      chain = chain.then(() => write(files)).catch(report);
      return chain;
    },
    idle: () => chain,
  };
}
