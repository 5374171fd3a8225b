/**
 * How deep a request's JSON may nest (contract §12, "Bounded work per request"): deeper answers
 * 400 invalid_json. Easel's own bodies nest four levels at most; 64 leaves room for clients'
 * custom fields while keeping every recursive walk over a parsed body (NUL checks, schema
 * validation, JSON.stringify) far from the stack's limit.
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \
const OPEN_BRACE = 0x7b; // {
const OPEN_BRACKET = 0x5b; // [
const CLOSE_BRACE = 0x7d; // }
const CLOSE_BRACKET = 0x5d; // ]

/**
 * Where the string that opens at `open` (a `"`) closes, or -1 when it never does. indexOf runs
 * natively, which keeps long strings cheap; a quote preceded by an odd number of backslashes is
 * escaped and the search goes on past it.
 */
export function closingQuote(text: string, open: number): number {
  let from = open;
  for (;;) {
    const close = text.indexOf('"', from + 1);
    if (close === -1) return -1;
    let backslashes = 0;
    while (text.charCodeAt(close - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return close;
    from = close;
  }
}

/**
 * Whether JSON text nests objects and arrays deeper than `max` levels (`{}` and `[]` are one
 * level). One pass over the text with a counter, no recursion and no allocation, so it costs the
 * same for a 100,000-deep body as for a flat one; brackets inside strings (escaped quotes
 * included) do not count. It is no validator: malformed text (unbalanced brackets, an unclosed
 * string) is left for JSON.parse to refuse.
 *
 * Written here rather than taken from a package: the scan is a dozen lines, and the parsers that
 * bound depth themselves replace JSON.parse with a slower one written in JavaScript.
 */
export function jsonNestsDeeperThan(text: string, max: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i);
      if (i === -1) return false; // an unclosed string: JSON.parse refuses it
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}
