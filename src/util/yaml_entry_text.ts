/**
 * One entry of a YAML map as text that stands alone, so a file rewritten
 * from parsed data can carry an entry it could not make sense of (a Ruby
 * block in a knowledge base's registry) back unchanged: the file's own bytes
 * when the entry is a line of a block map at column 0 without aliases (what
 * Ruby's Psych writes), else the entry printed anew from its nodes (aliases
 * replaced by what they name, anchors dropped; tags, quoting and flow styles
 * kept).
 *
 * @module
 */
import { type Document, isAlias, isMap, type Node, type Pair, visit, YAMLMap } from "yaml";

function range(node: unknown): readonly number[] | undefined {
  return (node as Node | null | undefined)?.range ?? undefined;
}

function hasAlias(pair: Pair): boolean {
  let found = false;
  const probe = new YAMLMap();
  probe.items.push(pair);
  visit(probe, {
    Alias() {
      found = true;
      return visit.BREAK;
    },
  });
  return found;
}

/** The entry printed from its nodes, aliases replaced by copies of what they name. */
function printed(doc: Document.Parsed, index: number): string {
  const copy = doc.clone();
  const pair = (copy.contents as YAMLMap).items[index]!;
  const single = new YAMLMap(copy.schema);
  single.items.push(pair);
  visit(single, {
    Alias(_key, node) {
      const target = node.resolve(copy);
      return target ? (target.clone() as Node) : undefined;
    },
  });
  // no alias is left to name an anchor: dropped, so none is defined twice in the file
  visit(single, {
    Node(_key, node) {
      delete node.anchor;
    },
  });
  copy.contents = single as unknown as typeof copy.contents;
  // no `---`/`...` nor the document's own comments: the entry goes among others
  if (copy.directives) Object.assign(copy.directives, { docStart: null, docEnd: false });
  copy.commentBefore = null;
  copy.comment = null;
  return copy.toString({ indentSeq: false });
}

/**
 * The text of the entry at `index` of a document's top-level map, as YAML
 * that parses alone to that one entry (ending in a line break).
 *
 * @param doc the parsed document (its contents a map)
 * @param text the text it was parsed from
 * @param index the entry's position among the map's items
 * @returns the entry's text
 *
 * @example
 * ```ts
 * import { parseDocument } from "yaml";
 * import { entryText } from "./yaml_entry_text.ts";
 * const text = "a: 1\nb:\n- !ruby/object:Proc {}\n";
 * entryText(parseDocument(text), text, 1); // "b:\n- !ruby/object:Proc {}\n"
 * ```
 */
export function entryText(doc: Document.Parsed, text: string, index: number): string {
  const map = doc.contents;
  if (!isMap(map)) throw new Error("The document is not a map");
  const pair = map.items[index]!;
  const start = range(pair.key)?.[0];
  const end = range(pair.value)?.[1] ?? range(pair.key)?.[1];
  const atLineStart = start !== undefined && (start === 0 || text[start - 1] === "\n");
  if (!map.flow && atLineStart && end !== undefined && !isAlias(pair.key) && !hasAlias(pair)) {
    const own = text.slice(start, end);
    return own.endsWith("\n") ? own : own + "\n";
  }
  return printed(doc, index);
}
