/**
 * The backend registry (`inference.md` §1.5): built-in adapters loaded lazily
 * by name (a command only loads the adapter it uses), plus backends registered
 * at run time with {@link registerBackend}. No module-name guessing.
 *
 * @module
 */
import { ScoutError } from "../errors.ts";
import type { Backend } from "./types.ts";

const BUILTIN = new Map<string, () => Promise<Backend>>([
  ["responses", async () => (await import("./backends/responses.ts")).responsesBackend],
  ["openai", async () => (await import("./backends/openai.ts")).openaiBackend],
  ["anthropic", async () => (await import("./backends/anthropic.ts")).anthropicBackend],
  ["ollama", async () => (await import("./backends/ollama.ts")).ollamaBackend],
  ["vllm", async () => (await import("./backends/vllm.ts")).vllmBackend],
  ["openwebui", async () => (await import("./backends/openwebui.ts")).openwebuiBackend],
  ["bedrock", async () => (await import("./backends/bedrock.ts")).bedrockBackend],
  ["relay", async () => (await import("./backends/relay.ts")).relayBackend],
  ["huggingface", async () => (await import("./backends/huggingface.ts")).huggingfaceBackend],
]);

/**
 * Built-ins loaded so far: every ask looks its backend up, and a dynamic
 * `import()` of a loaded module still costs ~25 µs (Deno).
 */
const loaded = new Map<string, Backend>();

const registered = new Map<string, Backend>();

/**
 * Registers (or replaces) a backend under `name`. Registered names take
 * precedence over built-ins, so tests and demos can register `mock`.
 *
 * @param name backend name used in chats (`backend: mock`) and options
 * @param backend the implementation
 *
 * @example
 * ```ts
 * import { registerBackend } from "./registry.ts";
 * registerBackend("echo", {
 *   defaults: { tag: "echo", model: "echo", keyEnv: [], modelEnv: [] },
 *   query: (req) => Promise.resolve({ items: [{ type: "text", text: String(req.messages.at(-1)?.content) }] }),
 * });
 * ```
 */
export function registerBackend(name: string, backend: Backend): void {
  registered.set(name, backend);
}

/**
 * Removes a registered backend (built-ins cannot be removed).
 *
 * @param name backend name
 * @returns true if one was registered
 */
export function unregisterBackend(name: string): boolean {
  return registered.delete(name);
}

/**
 * All backend names: built-ins, then registered ones.
 *
 * @returns names
 */
export function backendNames(): string[] {
  return [...new Set([...BUILTIN.keys(), ...registered.keys()])];
}

/**
 * Looks up a backend.
 *
 * @param name backend name
 * @returns the backend
 * @throws ScoutError `unknown_backend` ("Unknown backend: <name>", listing the known ones)
 */
export async function getBackend(name: string): Promise<Backend> {
  const r = registered.get(name) ?? loaded.get(name);
  if (r) return r;
  // a Map, not an object: "constructor" or "toString" is no backend
  const load = BUILTIN.get(name);
  if (load) {
    const backend = await load();
    loaded.set(name, backend);
    return backend;
  }
  throw new ScoutError(
    "unknown_backend",
    `Unknown backend: "${name}" (known: ${backendNames().join(", ")})`,
    { backend: name },
  );
}
