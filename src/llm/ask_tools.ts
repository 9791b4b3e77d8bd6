/**
 * The chat stages of an ask (`inference.md` §2.1 steps 4–5): the current
 * meta taken out, tools assembled from the whole chat (before any threading
 * trim, [TS-FIX] defect 11), `previous_response_id` threading and the
 * `websearch` option.
 *
 * @module
 */
import { clear, purge } from "../chat/clear.ts";
import type { MetaRecord } from "../chat/meta.ts";
import { currentMeta } from "../chat/meta_chat.ts";
import type { Message } from "../chat/types.ts";
import { assembleTools } from "../tools/assemble.ts";
import { toolRegistry } from "../tools/registry.ts";
import type { ToolRegistry } from "../tools/types.ts";
import { type AskContext, type AskRequest, isOff } from "./ask_options.ts";
import { markChatReplies } from "./reply_calls.ts";

/** The chat ready for the loop. */
export interface PreparedChat {
  /** Messages to send: no metas, tool lines resolved, threading applied. */
  chat: Message[];
  /** The chat's current meta. */
  currentMeta: MetaRecord;
  /** The tools. */
  registry: ToolRegistry;
  /** Continue from this response id (explicit `responses` backend). */
  previousResponseId?: string;
  /** Threading turned off by the chat (`previous_response: false`). */
  threadingOff: boolean;
}

/** Chat lines the default tool resolver answers (workflows, knowledge bases, MCP servers). */
const RESOLVED_ROLES = new Set(["tool", "introduce", "kb", "mcp"]);

async function tools(chat: Message[], ctx: AskContext) {
  let resolver = ctx.options.toolResolver;
  if (!resolver && chat.some((m) => RESOLVED_ROLES.has(m.role))) {
    await ctx.options.prepareWorkflows?.();
    const { workflowToolResolver } = await import("../tools/workflow.ts");
    const own = workflowToolResolver({
      cwd: ctx.cwd,
      env: ctx.env,
      config: ctx.store,
      warn: ctx.warn,
    });
    // MCP sessions it opened end with the ask (errors and Ctrl-C too); a
    // resolver passed in by the caller is the caller's to close
    ctx.onClose.push(() => own.close?.());
    resolver = own;
  }
  const signal = ctx.options.signal;
  return await assembleTools(chat, toolRegistry(ctx.options.tools), resolver, {
    ...(signal ? { signal } : {}),
    warn: ctx.warn,
  });
}

/**
 * Stage: metas out, tools in, threading and websearch. Takes
 * `previous_response_id` and `websearch` out of `req.opts`. Before the metas
 * go, the chat's calls get the mark of the reply each meta opens
 * (`reply_calls.ts`: a hidden property set on the chat's own messages).
 *
 * @param req the request
 * @param ctx the ask context
 * @returns the prepared chat
 */
export async function prepareChat(req: AskRequest, ctx: AskContext): Promise<PreparedChat> {
  const opts = req.opts;
  const cur = currentMeta(req.chat);
  markChatReplies(req.chat); // the metas mark which calls one reply made, before they go
  const assembled = await tools(req.chat.filter((m) => m.role !== "meta"), ctx);
  let chat = assembled.messages;
  const threadingOff = isOff(opts.previous_response) || opts.previous_response_id === false;
  let previousResponseId: string | undefined;
  if (opts.backend === "responses" && !threadingOff && opts.previous_response_id) {
    previousResponseId = String(opts.previous_response_id);
    chat = clear(chat, "previous_response_id");
  } else {
    chat = purge(chat, "previous_response_id");
  }
  delete opts.previous_response_id;
  // `websearch` option → the provider's hosted search tool (a websearch message)
  if (opts.websearch !== undefined && !isOff(opts.websearch)) {
    chat = [...chat, { role: "websearch", content: true }];
  }
  delete opts.websearch;
  return {
    chat,
    currentMeta: cur,
    registry: assembled.registry,
    threadingOff,
    ...(previousResponseId ? { previousResponseId } : {}),
  };
}
