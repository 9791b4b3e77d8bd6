/**
 * Tool assembly from a chat (`inference.md` §2.3): the caller's tools, then
 * the chat's tool directives in order (`tool:`, `mcp:`, `kb:`, `association:`;
 * later names win, a name offered by two sources is reported once), and
 * `introduce:` lines replaced in place by the workflow's documentation (once
 * per workflow). A tool name a provider would refuse is offered under an
 * alias and called under its real name (`names.ts`). Directives never reach the
 * provider. Workflow, MCP and knowledge-base lookups come from a resolver the
 * caller passes, so this layer stays free of their I/O.
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import type { Message } from "../chat/types.ts";
import { extractTools, type ToolDirective } from "../chat/tool_directives.ts";
import { locateAt } from "../chat/written_at.ts";
import { ScoutError } from "../errors.ts";
import { redactUrlsIn } from "../util/secrets.ts";
import { mergeRegistries } from "./registry.ts";
import type { ToolEntry, ToolRegistry } from "./types.ts";
import { definitionName } from "./registry.ts";
import { withProviderNames } from "./names.ts";

/** Resolves tool directives (supplied by the workflow/MCP/KB layers). */
export interface ToolResolver {
  /** `tool: <Workflow> [task [inputs…]]` → tool entries. */
  workflowTools?(tokens: string[]): Promise<ToolEntry[]>;
  /** `introduce: <Workflow>` → the documentation text, or null when there is none. */
  introduce?(workflow: string): Promise<string | null>;
  /**
   * `mcp: <url> [names…]` / `mcp: stdio <command> [names…]` → tool entries;
   * `signal` aborts starting the server.
   */
  mcpTools?(tokens: string[], signal?: AbortSignal): Promise<ToolEntry[]>;
  /** `kb: <kb> [databases…]` → tool entries. */
  kbTools?(tokens: string[]): Promise<ToolEntry[]>;
  /** `association: <name> <path> [k=v…]` → tool entries. */
  associationTools?(tokens: string[]): Promise<ToolEntry[]>;
  /** Ends what the resolver started for the run (MCP sessions); the ask calls it last. */
  close?(): Promise<void>;
}

export { shellWords, TOOL_DIRECTIVES } from "../chat/tool_directives.ts";

function unavailable(role: string, content: string): ScoutError {
  return new ScoutError(
    "not_available",
    `"${role}:" tools are not available here (${role}: ${content.trim()})`,
    { role },
  );
}

/** Options of {@link assembleTools}. */
export interface AssembleOptions {
  /** Aborts what the resolver starts (MCP servers). */
  signal?: AbortSignal;
  /** Where a tool name offered by two sources is reported (once per name). */
  warn?: (message: string) => void;
}

/** What the directives of a chat built so far. */
interface Directives {
  chatTools: ToolRegistry;
  associations: ToolRegistry;
  introduced: Set<string>;
  docs: { position: number; text: string }[];
  /** The line that offered each tool so far, per registry. */
  sources: Map<ToolRegistry, Map<string, string>>;
  /** Names already reported as offered twice. */
  collided: Set<string>;
}

/**
 * The source a directive's tools come from: `mcp: stdio 'cmd'`, `kb: name`…;
 * the credentials of a url in it masked (R115-3).
 */
function sourceOf({ role, words }: ToolDirective): string {
  if (role === "mcp" && words[0] === "stdio") return redactUrlsIn(`mcp: stdio '${words[1] ?? ""}'`);
  if (role === "association") return `association: ${words.slice(0, 2).join(" ")}`;
  return redactUrlsIn(`${role}: ${words[0] ?? ""}`);
}

// Later names win (inference.md §2.3); a name offered by another source is reported (R76-9).
function add(
  state: Directives,
  reg: ToolRegistry,
  entries: ToolEntry[],
  source: string,
  warn?: (message: string) => void,
): void {
  let seen = state.sources.get(reg);
  if (!seen) state.sources.set(reg, seen = new Map());
  const safe = withProviderNames(entries, (real, alias) =>
    warn?.(
      `Tool "${real}" of ${source} is offered as "${alias}" (a provider function name has only letters, digits, _ and -, at most 64)`,
    ));
  for (const e of safe) {
    const name = definitionName(e.definition);
    const before = seen.get(name);
    if (before !== undefined && before !== source && !state.collided.has(name)) {
      state.collided.add(name);
      warn?.(
        `Tool "${name}" is offered by ${before} and by ${source}; the later one (${source}) is used`,
      );
    }
    reg.set(name, e);
    seen.set(name, source);
  }
}

/**
 * The caller's tools with the chat's over them (later wins, `inference.md`
 * §2.3). A chat line's tool replacing a different caller's tool of its name
 * (an MCP server's `ask` over the `ask` of `socialize: true`) is reported
 * once, as between two lines (R115-5); the same definition given by both
 * (an agent's own workflow also named on a `tool:` line) is no conflict.
 */
function overBase(
  base: ToolRegistry,
  state: Directives,
  warn?: (message: string) => void,
): ToolRegistry {
  for (const [name, under] of base) {
    // the chat's tool that wins: an association's over a directive's
    const reg = [state.associations, state.chatTools].find((r) => r.has(name));
    if (!reg || state.collided.has(name)) continue;
    if (isDeepStrictEqual(under.definition, reg.get(name)!.definition)) continue;
    state.collided.add(name);
    const source = state.sources.get(reg)?.get(name) ?? "the chat";
    warn?.(
      `Tool "${name}" is offered by the caller's tools and by ${source}; the later one (${source}) is used`,
    );
  }
  return mergeRegistries(base, state.chatTools, state.associations);
}

async function applyDirective(
  d: ToolDirective,
  state: Directives,
  resolver: ToolResolver,
  opts: AssembleOptions,
): Promise<void> {
  const { role, content, words, position } = d;
  const put = (reg: ToolRegistry, entries: ToolEntry[]) =>
    add(state, reg, entries, sourceOf(d), opts.warn);
  switch (role) {
    case "tool":
      if (!resolver.workflowTools) throw unavailable("tool", content);
      put(state.chatTools, await resolver.workflowTools(words));
      break;
    case "mcp":
      if (!resolver.mcpTools) throw unavailable("mcp", content);
      put(state.chatTools, await resolver.mcpTools(words, opts.signal));
      break;
    case "kb":
      if (!resolver.kbTools) throw unavailable("kb", content);
      put(state.chatTools, await resolver.kbTools(words));
      break;
    case "association":
      if (!resolver.associationTools) throw unavailable("association", content);
      put(state.associations, await resolver.associationTools(words));
      break;
    case "clear_associations":
      state.associations = new Map();
      break;
    case "introduce": {
      const wf = words[0];
      if (!wf || state.introduced.has(wf)) break;
      state.introduced.add(wf);
      if (!resolver.introduce) throw unavailable("introduce", content);
      const doc = await resolver.introduce(wf);
      if (doc) state.docs.push({ position, text: doc });
      break;
    }
  }
}

/**
 * Builds the tool registry of an ask and removes the directives.
 *
 * @param messages compiled chat messages (the whole chat, before any threading trim)
 * @param base the caller's tools
 * @param resolver directive resolver
 * @param opts the run's abort signal; where tool name collisions are reported
 * @returns the registry and the messages without directives (introductions in place)
 * @throws ScoutError `not_available` for a directive without a resolver; the
 *   resolver's errors — located at the directive's file and line when it was
 *   written in a compiled chat file (a user's chat, an agent's `start_chat`)
 */
export async function assembleTools(
  messages: readonly Message[],
  base: ToolRegistry,
  resolver: ToolResolver = {},
  opts: AssembleOptions = {},
): Promise<{ registry: ToolRegistry; messages: Message[] }> {
  const { directives, chat } = extractTools(messages);
  const state: Directives = {
    chatTools: new Map(),
    associations: new Map(),
    introduced: new Set(),
    docs: [],
    sources: new Map(),
    collided: new Set(),
  };
  for (const d of directives) {
    try {
      await applyDirective(d, state, resolver, opts);
    } catch (e) {
      throw locateAt(e, d.at); // the chat line it was written on (a start chat's, a chat file's)
    }
  }
  // Introductions go where their directive stood (later positions first keeps indices valid).
  const rest = [...chat];
  for (const { position, text } of state.docs.reverse()) {
    rest.splice(position, 0, { role: "user", content: text });
  }
  const registry = overBase(base, state, opts.warn);
  return { registry, messages: rest };
}
