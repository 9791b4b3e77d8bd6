/**
 * Strongly connected components of the provenance graph (cycles are normal:
 * a result chat points back at its job), for subtree totals.
 *
 * @module
 */
import type { ChildLists } from "./child_lists.ts";

/**
 * Strongly connected components (iterative Tarjan), emitted in reverse
 * topological order: every component comes after all components it reaches.
 *
 * @param children children per node index
 * @returns the component of each node and the number of components
 */
export function components(children: ChildLists): { comp: Int32Array; count: number } {
  const n = children.nodes;
  const { start, list } = children;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const comp = new Int32Array(n).fill(-1);
  const stack: number[] = [];
  const frames: number[] = []; // pairs: node, next child position
  let counter = 0;
  let count = 0;
  for (let s = 0; s < n; s++) {
    if (index[s] !== -1) continue;
    index[s] = low[s] = counter++;
    stack.push(s);
    onStack[s] = 1;
    frames.push(s, 0);
    while (frames.length > 0) {
      const v = frames[frames.length - 2]!;
      const i = frames[frames.length - 1]!;
      if (start[v]! + i < start[v + 1]!) {
        frames[frames.length - 1] = i + 1;
        const w = list[start[v]! + i]!;
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = 1;
          frames.push(w, 0);
        } else if (onStack[w] === 1 && index[w]! < low[v]!) {
          low[v] = index[w]!;
        }
        continue;
      }
      frames.length -= 2;
      if (frames.length > 0) {
        const parent = frames[frames.length - 2]!;
        if (low[v]! < low[parent]!) low[parent] = low[v]!;
      }
      if (low[v] === index[v]) {
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          comp[w] = count;
        } while (w !== v);
        count++;
      }
    }
  }
  return { comp, count };
}
