import { closingQuote } from "./json-depth";

const QUOTE = 0x22; // "
const COLON = 0x3a; // :
const COMMA = 0x2c; // ,
const OPEN_BRACE = 0x7b; // {
const OPEN_BRACKET = 0x5b; // [
const CLOSE_BRACE = 0x7d; // }
const CLOSE_BRACKET = 0x5d; // ]

/**
 * The keys leading to the first object or array of JSON text that holds more than `max` entries,
 * from the top level down (`[null, "asset", "fields"]`: the top level and an array's elements
 * stand under no key, null), or null when none does.
 * One pass over the text, before it is parsed: a route whose bound on one container is far below
 * the body's own limits (100 custom fields in a body that may hold 50,000 values) refuses the
 * body without paying for JSON.parse of a 45,000-key object (30-80 ms of the event loop). A key
 * is decoded only when a container opens under it; malformed text is left to JSON.parse.
 */
export function firstContainerOver(text: string, max: number): (string | null)[] | null {
  const keys: (string | null)[] = [];
  const commas: number[] = [];
  let lastString = -1; // where the last string opened, while it may still be a key
  let keyAt = -1; // where the key of the value about to come opened (after its colon)
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const close = closingQuote(text, i);
      if (close === -1) return null;
      lastString = i;
      i = close;
    } else if (c === COLON) {
      keyAt = lastString;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      keys.push(keyAt === -1 ? null : keyOf(text, keyAt));
      commas.push(0);
      keyAt = -1;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      keys.pop();
      commas.pop();
      keyAt = -1;
    } else if (c === COMMA) {
      keyAt = -1;
      const top = commas.length - 1;
      if (top >= 0 && ++commas[top] >= max) return keys.slice();
    }
  }
  return null;
}

/** The key string that opens at `open`, decoded; null when its escapes are not JSON's. */
function keyOf(text: string, open: number): string | null {
  try {
    return JSON.parse(text.slice(open, closingQuote(text, open) + 1)) as string;
  } catch {
    return null; // malformed: JSON.parse of the whole body refuses it next
  }
}
