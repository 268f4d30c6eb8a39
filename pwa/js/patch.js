// RFC 7396 JSON merge patch: objects merge key by key, null deletes a key, anything else
// (arrays too) replaces. Pure: returns a new value and leaves both arguments as they were.
export function mergePatch(target, patch) {
  if (!isObject(patch)) return patch;
  const result = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
