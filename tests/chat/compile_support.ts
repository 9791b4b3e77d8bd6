/** Helpers for the compile tests: a temp directory tree and isolated compile options. */
import { dirname, join } from "node:path";
import { emptyConfig } from "../../src/config/store.ts";
import { emptyAllowPaths } from "../../src/config/allow_paths.ts";
import type { CompileOptions } from "../../src/chat/compile.ts";

/** A temporary directory holding `files` (path → content), removed on dispose. */
export async function tree(
  files: Record<string, string>,
): Promise<{ path: string; at: (p: string) => string } & AsyncDisposable> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix: "scout-compile-" }));
  for (const [rel, content] of Object.entries(files)) {
    const p = join(path, rel);
    await Deno.mkdir(dirname(p), { recursive: true });
    await Deno.writeTextFile(p, content);
  }
  return {
    path,
    at: (p: string) => join(path, p),
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }).catch(() => {}),
  };
}

/** Compile options that touch nothing process-wide: own store, lists, env, cwd. */
export function isolated(cwd: string, extra: CompileOptions = {}): CompileOptions & {
  config: NonNullable<CompileOptions["config"]>;
  allowPaths: NonNullable<CompileOptions["allowPaths"]>;
} {
  return {
    cwd,
    env: { HOME: join(cwd, "home"), SCOUT_HOME: join(cwd, "scout_home") },
    config: emptyConfig(),
    allowPaths: emptyAllowPaths(),
    ...extra,
  } as never;
}

/** `role:content` notation of a chat. */
export function rc(chat: readonly { role: string; content: unknown }[]): string[] {
  return chat.map((m) =>
    `${m.role}:${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}`
  );
}
