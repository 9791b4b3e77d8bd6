/**
 * Children in process groups of their own, and ending them: a signal to the
 * whole group (what a child started goes too), waiting a bounded time for a
 * group to be gone. Used by the MCP stdio client transport and the local
 * deploy's workers.
 *
 * @module
 */
import { readdir, readFile } from "node:fs/promises";

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
 */
async function onlyZombies(pgid: number): Promise<boolean> {
  if (!PROC) return false;
  let entries: string[];
  try {
    entries = await readdir("/proc");
  } catch {
    return false;
  }
  let members = 0;
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, "latin1").catch(() => "");
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 1).trim().split(" ");
    if (Number(pgrp) !== pgid) continue;
    if (state !== "Z") return false;
    members++;
  }
  return members > 0;
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
    if (await onlyZombies(pid)) return true;
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
}
