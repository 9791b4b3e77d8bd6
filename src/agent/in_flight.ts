/**
 * What an agent's running ask has paid for so far (R106-3): the messages its
 * tool loop produced up to its last meta record and the reply that record
 * paid for (its calls without outputs while they run, R111-2) — or, on the
 * task route, the `meta job=…` marker of the job it runs, once that job paid
 * for something (R111-1) —, kept beside the agent while the ask runs (a
 * failed or finished ask clears them: its caller appends or logs what it
 * returned). A chat task's logs are rewritten from the live chats plus these
 * after each inference ({@link trackPaid} reaches the writer of the enclosing
 * {@link withPaidListener}, and that one the writers around it, delegated
 * jobs' included), so a process killed by SIGKILL leaves logs holding, or
 * linking to, every inference it paid for.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Message } from "../chat/types.ts";
import type { AskEvent } from "../llm/ask_loop_types.ts";

const running = new WeakMap<object, Message[]>();
const listener = new AsyncLocalStorage<() => void>();

/**
 * The messages an agent's running ask produced up to its last meta record.
 *
 * @param agent the agent (any object: the log reads plain agents)
 * @returns the messages, or none when no ask of it runs
 */
export function inFlight(agent: object): readonly Message[] {
  return running.get(agent) ?? [];
}

/**
 * Wraps an ask's event hook so that each meta record keeps what the ask paid
 * so far beside `agent` and tells the enclosing listener.
 *
 * @param agent the asking agent
 * @param onEvent the hook to keep calling
 * @returns the wrapped hook
 */
export function trackPaid(
  agent: object,
  onEvent: ((e: AskEvent) => void) | undefined,
): (e: AskEvent) => void {
  return (e) => {
    if (e.type === "meta") {
      running.set(agent, e.produced);
      listener.getStore()?.();
    }
    onEvent?.(e);
  };
}

/**
 * Keeps `messages` as what an agent's running ask has produced so far (a
 * task-route ask: its job's marker), for the next rewrite of the logs.
 *
 * @param agent the asking agent
 * @param messages what its ask produced so far
 */
export function keepInFlight(agent: object, messages: Message[]): void {
  running.set(agent, messages);
}

/**
 * Forgets what an agent's ask had in flight (the ask ended).
 *
 * @param agent the agent
 */
export function settled(agent: object): void {
  running.delete(agent);
}

/**
 * Runs `fn` with `onPaid` called after every inference paid inside it
 * (nested asks of specialists included). A listener around this one is
 * called too, once `onPaid`'s checkpoint is written (what it returns
 * resolved): the logs of a job that a delegated job runs inside follow that
 * job's, and so link to them only once they exist (R111-1).
 *
 * @param onPaid called synchronously after each meta record; may return
 *   when its checkpoint is written
 * @param fn the work
 * @returns what `fn` returns
 */
export function withPaidListener<T>(
  onPaid: () => Promise<void> | void,
  fn: () => Promise<T>,
): Promise<T> {
  const outer = listener.getStore();
  const notify = outer === undefined
    ? () => void onPaid()
    : () => void Promise.resolve(onPaid()).then(outer);
  return listener.run(notify, fn);
}
