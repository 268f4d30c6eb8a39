// Views key what grows with the game by id ({"p3": {...}}): these turn such an object into rows
// that carry their id again, in the order the ids were made ("p9" before "p10"). An array
// passes through as it is. A patch leaves what it does not touch the same object, so the rows
// of an unchanged collection are made once (callers must not change them).
const byId = new Intl.Collator("en", { numeric: true }).compare;
const made = new WeakMap(); // collection -> {idField, list}

export function rows(collection, idField) {
  if (!collection) return [];
  if (Array.isArray(collection)) return collection;
  const known = made.get(collection);
  if (known?.idField === idField) return known.list;
  const list = Object.keys(collection).sort(byId).map((id) => ({ ...collection[id], [idField]: id }));
  made.set(collection, { idField, list });
  return list;
}

// The number of entries of a keyed object (or an array).
export function count(collection) {
  return collection ? Object.keys(collection).length : 0;
}
