/**
 * Knowledge bases (`agents.md` §6.1–§6.2): directories of association
 * databases, each registered from a Scout TSV file in `config/registry`,
 * indexed on first use next to the knowledge base, and queried the way
 * Scout does (`children`, `parents`, association details).
 *
 * @example
 * ```ts
 * import { mkdtempSync, rmSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { children, closeStores, openKnowledgeBase, registerDatabase } from "./mod.ts";
 * const kb = mkdtempSync(join(tmpdir(), "kb-")); // a directory of its own
 * registerDatabase(kb, "parents", "fixtures/kb/family/parents");
 * children(openKnowledgeBase(kb), "parents", ["Ada"]); // ["Ada~Bruno", "Ada~Carla"]
 * closeStores();
 * rmSync(kb, { recursive: true });
 * ```
 *
 * @module
 */
export {
  associationDetails,
  children,
  closeStores,
  databaseInfo,
  databaseNames,
  databaseStore,
  indexPath,
  openKnowledgeBase,
  parents,
} from "./database.ts";
export type { DatabaseInfo, KnowledgeBase } from "./database.ts";
export { readRegistry, registryPath, writeRegistry } from "./registry.ts";
export type { DatabaseOptions, Registry, RegistryEntry } from "./registry.ts";
export {
  agentKnowledgeBase,
  knowledgeBaseOfAgent,
  registerDatabase,
  resolveKnowledgeBase,
} from "./resolve.ts";
export type { KbLookupOptions } from "./resolve.ts";
export { parseTsvOptions, readTsvHeader } from "./tsv.ts";
export type { TsvHeader, TsvOptions } from "./tsv.ts";
export { openStore } from "./store.ts";
export type { AssociationStore } from "./store.ts";
export { buildStore } from "./store_build.ts";
export type { IndexMeta } from "./store_format.ts";
