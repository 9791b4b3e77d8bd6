/**
 * The specialists a delegate's `new_conversation` carries over
 * (`agents-core.md` notes, §3.5): the delegate keeps its `chats` across a
 * restart, as Ruby's `start` does, so the new conversation may continue a
 * specialist conversation the ended one began; but a conversation's log
 * holds only the specialist conversations it caused. A carried-over
 * specialist is logged under the new conversation once one of its own tool
 * calls has run it (the call's output records it); until then only under
 * the conversation that asked it. Identity side table: agents stay plain data.
 *
 * @module
 */

const carried = new WeakMap<object, Set<object>>();

/**
 * A restart of `agent`'s conversation: the specialists it holds now are
 * carried over; `ended`, the record keeping the conversation that ends,
 * keeps what that conversation itself carried and never ran.
 *
 * @param agent the live agent going on in a new conversation
 * @param ended the record of the conversation that ends
 */
export function carryOver(agent: object & { chats: Record<string, object> }, ended: object): void {
  const before = carried.get(agent);
  if (before !== undefined) carried.set(ended, new Set(before));
  carried.set(agent, new Set(Object.values(agent.chats)));
}

/**
 * A specialist that `caller`'s conversation has run: logged under it from now.
 *
 * @param caller the agent whose tool loop ran it
 * @param specialist the specialist
 */
export function reached(caller: object, specialist: object): void {
  carried.get(caller)?.delete(specialist);
}

/**
 * A record replacing `live` in `caller`'s `chats` (a hand-off's ended
 * conversation) is carried over as `live` was.
 *
 * @param caller the agent holding both
 * @param live the agent the record stands for
 * @param record the record
 */
export function carriedAs(caller: object, live: object, record: object): void {
  const set = carried.get(caller);
  if (set?.has(live)) set.add(record);
}

/**
 * Whether `specialist`, held by `agent`, was carried over from an earlier
 * conversation of `agent` and not run by the current one (not logged under it).
 *
 * @param agent the holder
 * @param specialist the held specialist
 * @returns true when it is not this conversation's
 */
export function isCarriedOver(agent: object, specialist: object): boolean {
  return carried.get(agent)?.has(specialist) === true;
}
