/**
 * Tools: definitions and registries, dispatch of a model's tool calls into
 * `function_call` / `function_call_output` pairs, zod-defined function tools,
 * assembly of a chat's tool directives, and workflow tasks as tools.
 *
 * @example
 * ```ts
 * import { runToolCalls, toolRegistry } from "./mod.ts";
 * const registry = toolRegistry({ echo: [(_n, a) => a.text, { name: "echo" }] });
 * const [call, output] = await runToolCalls([{ name: "echo", arguments: { text: "hi" }, id: "c1" }], { registry });
 * ```
 *
 * @module
 */
export type {
  FunctionSpec,
  FunctionToolDefinition,
  HostedToolDefinition,
  JsonSchema,
  ToolCallContext,
  ToolDefinition,
  ToolEntry,
  ToolFunction,
  ToolInvocation,
  ToolOutput,
  ToolParameters,
  ToolRegistry,
} from "./types.ts";
export { isToolOutput, TOOL_OUTPUT, toolOutput } from "./types.ts";
export { isAgentRequest } from "./agent_results.ts";
export type { AgentRequest, SpecialistResult, SpecialistRunner } from "./agent_results.ts";
export {
  definitionName,
  isFunctionDefinition,
  mergeRegistries,
  normalizeDefinition,
  providerDefinitions,
  toolRegistry,
} from "./registry.ts";
export type { ToolsInput } from "./registry.ts";
export { functionCallContent, parseArguments, parseToolCall } from "./calls.ts";
export { envelopeContent, runToolCalls } from "./dispatch.ts";
export type { OutputEnvelope, RunToolCallsOptions } from "./dispatch.ts";
export { DEFAULT_MAX_CONTENT_LENGTH, errorOutput } from "./content.ts";
export { checkArguments } from "./validate.ts";
export { defineTool, zodParameters } from "./define.ts";
export type { DefineToolOptions, ToolSchema } from "./define.ts";
export { assembleTools } from "./assemble.ts";
export type { AssembleOptions, ToolResolver } from "./assemble.ts";
export {
  inputSchema,
  introductionText,
  parseToolFilter,
  RETURN_PATH_DESCRIPTION,
  taskToolDefinition,
  taskToolFunction,
  workflowToolNames,
  workflowToolResolver,
  workflowTools,
} from "./workflow.ts";
export type { ToolFilter, WorkflowToolOptions } from "./workflow.ts";
