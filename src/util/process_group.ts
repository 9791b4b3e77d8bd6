/**
 * Children in process groups of their own, and ending them: a signal to the
 * whole group (what a child started goes too), waiting a bounded time for a
 * group to be gone. Used by the MCP stdio client transport and the local
 * deploy's workers.
 *
 * @module
 */
import { readdirSync, readFileSync } from "node:fs";

/** Whether children get groups of their own (`spawn`'s `detached`): not on Windows. */
export const GROUPS: boolean = process.platform !== "win32";
/** Whether `/proc/<pid>/stat` has the Linux layout. */
const PROC = process.platform === "linux";

/**
 * Sends a signal to the group a child leads (to the child alone without
 * groups).
 *
 * @param pid the child's pid (its group's id)
 * @param sig the signal (0 = only ask whether the group exists)
 * @returns whether it was sent
 */
export function signalGroup(pid: number, sig: NodeJS.Signals | 0): boolean {
  try {
    process.kill(GROUPS ? -pid : pid, sig);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `p` settles within `ms` (the timer is cleared either way).
 *
 * @param p a promise
 * @param ms how long to wait
 * @returns true when it settled in time
 */
export async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms)));
  try {
    return await Promise.race([p.then(() => true, () => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether every process left in group `pgid` is a zombie, from Linux `/proc`
 * (`pid (comm) state ppid pgrp …`, read after the last `)` since comm may hold
 * one). False when `/proc` is unreadable or shows no member (e.g. another pid
 * namespace): then only the group's signals tell.
 *
 * One synchronous pass (a few microseconds a process): finding the members
 * takes every process's `stat`, and awaiting each read cost a turn of the
 * thread pool apiece — on a loaded machine one pass over ~160 processes took
 * up to 3 s, and a close waited out its grace period after all (R145-3).
 */
function onlyZombies(pgid: number): boolean {
  if (!PROC) return false;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return false;
  }
  let members = 0;
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const stat = statOf(name);
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 1).trim().split(" ");
    if (Number(pgrp) !== pgid) continue;
    if (state !== "Z") return false;
    members++;
  }
  return members > 0;
}

/** `/proc/<pid>/stat`, or "" for a process gone meanwhile. */
function statOf(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return "";
  }
}

/**
 * Waits until the process group is gone, at most `ms`. A group holding only
 * zombies counts as gone: `kill(-pgid, 0)` succeeds for them, and an orphan's
 * new parent may reap late or never (no init in a container), so each close
 * of a server whose wrapper left a background child waited the whole grace
 * period (R78-4).
 *
 * @param pid the group's id (its leader's pid)
 * @param ms how long to wait at most
 * @returns true when the group is gone
 */
export async function groupGone(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (signalGroup(pid, 0)) {
    if (onlyZombies(pid)) return true;
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
}
