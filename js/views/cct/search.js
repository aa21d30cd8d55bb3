// Name search for tree views: a regular expression over the unique names of a tree.

/** A regular expression from search text (null for empty text); case-insensitive unless
 * the text has a capital letter. Throws SyntaxError for an invalid expression. */
export function searchPattern(text) {
  if (!text) return null;
  return new RegExp(text, /[A-Z]/.test(text) ? "" : "i");
}

/** Ids (ascending) of the nodes whose name the pattern finds; each unique name is
 * tested once. */
export function matchingNodes(tree, pattern) {
  const { names, nameIndex, n } = tree;
  const hit = new Uint8Array(names.length);
  for (let u = 0; u < names.length; u++) hit[u] = pattern.test(names.get(u)) ? 1 : 0;
  const out = [];
  for (let i = 0; i < n; i++) if (hit[nameIndex[i]]) out.push(i);
  return out;
}
