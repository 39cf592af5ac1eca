// cheerio's `.text()` of a selection without domutils' array per element: the text nodes' data under each node, in
// document order, joined once.
import type { AnyNode, ParentNode } from 'domhandler';

/**
 * `$(nodes).text()`: the data of every text node under each node (the node itself included), in order, comments
 * left out (CDATA's text kept, as domutils' `textContent` does). Iterative: the depth of the tree costs no stack.
 */
export function treeText(nodes: readonly AnyNode[]): string {
  let out = '';
  for (const node of nodes) {
    const stack: AnyNode[] = [node];
    while (stack.length > 0) {
      const n = stack.pop() as AnyNode;
      if (n.type === 'text') out += n.data;
      else if (n.type !== 'comment' && 'children' in n) {
        const children = (n as ParentNode).children;
        for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
      }
    }
  }
  return out;
}
