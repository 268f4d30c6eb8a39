// Views key what grows with the game by id ({"p3": {...}}): these turn such an object into rows
// that carry their id again, in the order the ids were made ("p9" before "p10"). An array
// passes through as it is.
const byId = (a, b) => a.localeCompare(b, "en", { numeric: true });

export function rows(collection, idField) {
  if (!collection) return [];
  if (Array.isArray(collection)) return collection;
  return Object.keys(collection).sort(byId).map((id) => ({ ...collection[id], [idField]: id }));
}

// The number of entries of a keyed object (or an array).
export function count(collection) {
  return collection ? Object.keys(collection).length : 0;
}
