/**
 * The provenance walker (`provenance.md`): given a chat file or a job,
 * explain how it was produced — which chats, jobs, delegated agents and
 * tokens. One traversal primitive ({@link traverseProvenance}), thin
 * collectors over it, token events and totals, and pure renderers (tree,
 * flow, DOT, evidence report, JSON) over one collected report. It reads
 * files and never runs anything.
 *
 * @example
 * ```ts ignore
 * import { provenanceReport, renderTree } from "./mod.ts";
 * const report = provenanceReport("session.chat", { jobRoots: ["var/jobs"] });
 * console.log(renderTree(report));
 * ```
 *
 * @module
 */
export { PROVENANCE_RELATIONS } from "./types.ts";
export type {
  ChatRef,
  JobInfo as ProvenanceJobInfo,
  JobRef,
  LoadedChat,
  NodeKind,
  NodeRef,
  OnError,
  ProvenanceError,
  ProvenanceRoots,
  Relation,
  TraversalRecord,
  TraverseOptions,
} from "./types.ts";
export { chatJobReferences, loadChatFile, traverseProvenance } from "./traverse.ts";
export {
  provenanceChatFiles,
  provenanceChatMap,
  provenanceEdges,
  provenanceJobs,
} from "./collect.ts";
export type { ProvenanceEdge } from "./collect.ts";
export {
  defaultJobRoots,
  directJobChatFiles,
  isJobPath,
  jobDependencies,
  jobResultChatFile,
  provenanceRoot,
  readJobNodeInfo,
  resolveJobNode,
} from "./jobs.ts";
export type { JobInfoRead, JobLogFiles, JobResolveOptions, ProvenanceRoot } from "./jobs.ts";
export { canonicalPath } from "./paths.ts";
export { provenanceTokenEvents, provenanceTokenTotals, tokens } from "./tokens.ts";
export type {
  ConflictCounts,
  TokenEventOptions,
  TokenTotalsOptions,
  TokenWarning,
} from "./tokens.ts";
export { TOKEN_SCOPES } from "./evidence.ts";
export type {
  ChatMetaItem,
  Deduplication,
  EventStatus,
  EvidenceItem,
  IdentityConflict,
  ReceiptItem,
  TokenEvent,
  TokenScope,
} from "./evidence.ts";
export { provenanceReport } from "./report.ts";
export type {
  DisplayEdge,
  EdgeDetail,
  HiddenReason,
  JobSummary,
  NodeCost,
  ProvenanceReport,
  ReceiptSummary,
  ReportEdge,
  ReportNode,
  ReportOptions,
  ReportTotals,
  ReportWarning,
} from "./report.ts";
export type { CanonicalCopy, CanonicalEvent, EventSummary, ReportEvents } from "./event_table.ts";
export type { ReportNodes } from "./report_types.ts";
export type { ModelPrice, PriceTable } from "./prices.ts";
export { coverageLines, renderTree, treeLines } from "./render_tree.ts";
export type { RenderOptions } from "./render_tree.ts";
export { renderDot, renderFlow } from "./render_flow.ts";
export { renderEvidence, warningLine, warningLines } from "./render_evidence.ts";
export {
  PROVENANCE_SCHEMA,
  PROVENANCE_SCHEMA_VERSION,
  provenanceJson,
  provenanceJsonChunks,
  writeProvenanceJson,
} from "./json.ts";
export * from "./tool_calls.ts";
export * from "./render_tool_calls.ts";
export {
  delegationCalls,
  delegationFacts,
  HAND_OFF_PREFIX,
  isDelegationTool,
  linkDelegation,
  societyDirs,
  societyLogIndex,
} from "./delegation.ts";
export type {
  CallReceipt,
  DelegationAssociation,
  DelegationCall,
  DelegationFacts,
  DelegationLinks,
  SocietyLogIndex,
} from "./delegation.ts";
export type { ChatFacts, ControlJobs } from "./chat_facts.ts";
export type { ChatFailure } from "./chat_failure.ts";
export type { FileEvidence } from "./evidence.ts";
