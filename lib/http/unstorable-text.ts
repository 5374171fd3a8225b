/**
 * Strings Easel cannot store as they came (contract §10, "Input"): U+0000, which PostgreSQL text
 * and jsonb cannot hold, and a lone UTF-16 surrogate (half of a pair, as a JSON `\ud800` escape
 * gives), which has no UTF-8 form: text columns would silently store U+FFFD instead, and jsonb
 * (the job events a write stores with it) refuses it. Every JSON body is checked once where it
 * is parsed, so such input answers 422 naming the field and changes nothing.
 */
export function unstorableReason(text: string): string | null {
  if (text.includes("\u0000")) return "must not contain a NUL character (U+0000)";
  if (!text.isWellFormed()) return "must not contain a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff)";
  return null;
}

export type UnstorableField = { field: string; reason: string };

/**
 * The first string of a parsed JSON value, key or value, that cannot be stored: its dotted path
 * (array items by index; "" for the value itself) and why. Null when every string is fine. The
 * value's nesting is bounded before parsing (MAX_JSON_DEPTH), which bounds this recursion.
 */
export function findUnstorable(value: unknown, path: string[] = []): UnstorableField | null {
  if (typeof value === "string") {
    const reason = unstorableReason(value);
    return reason ? { field: path.join("."), reason } : null;
  }
  if (value === null || typeof value !== "object") return null;
  // One path for the whole walk, extended and restored around each child, and numbers, booleans
  // and nulls skipped without a call: a 1 MiB body holds up to 500,000 values (lib/http/json-values.ts
  // bounds it at 50,000), and copying the path or an [key, value] pair for each took 300-700 ms.
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = visit(value[i], path, String(i));
      if (hit) return hit;
    }
    return null;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const keyReason = unstorableReason(key);
    if (keyReason) return { field: [...path, key].join("."), reason: keyReason };
    const hit = visit((value as Record<string, unknown>)[key], path, key);
    if (hit) return hit;
  }
  return null;
}

function visit(item: unknown, path: string[], key: string): UnstorableField | null {
  if (item === null || (typeof item !== "string" && typeof item !== "object")) return null;
  path.push(key);
  const hit = findUnstorable(item, path);
  path.pop();
  return hit;
}
