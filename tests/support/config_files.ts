/**
 * The two config files a lookup reads, written for a test: `$SCOUT_HOME`'s
 * and the working directory's `etc/config`.
 *
 * @module
 */
import { join } from "node:path";

/** Where {@link twoConfigs} wrote. */
export interface TwoConfigs {
  /** `<dir>/home`, the Scout home. */
  home: string;
  /** `<dir>/work`, the working directory. */
  cwd: string;
  /** `<home>/etc/config`. */
  homeFile: string;
  /** `<cwd>/etc/config`. */
  cwdFile: string;
}

/** Writes `<dir>/home/etc/config` with `homeText` and `<dir>/work/etc/config` with `cwdText`. */
export async function twoConfigs(
  dir: string,
  homeText: string,
  cwdText: string,
): Promise<TwoConfigs> {
  const home = join(dir, "home");
  const cwd = join(dir, "work");
  await Deno.mkdir(join(home, "etc"), { recursive: true });
  await Deno.mkdir(join(cwd, "etc"), { recursive: true });
  const homeFile = join(home, "etc", "config");
  const cwdFile = join(cwd, "etc", "config");
  await Deno.writeTextFile(homeFile, homeText);
  await Deno.writeTextFile(cwdFile, cwdText);
  return { home, cwd, homeFile, cwdFile };
}
