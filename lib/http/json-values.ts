import { closingQuote } from "./json-depth";

/**
 * How many values a request's JSON may hold (contract §12, "Bounded work per request"). Easel's
 * largest legitimate bodies hold a few hundred (a PATCH with 100 tags and 100 custom fields; an
 * MCP batch of 100 calls about a thousand), but a 1 MiB body can hold 500,000: 120,000 keys that no
 * schema reads cost 100-180 ms to parse and 300 ms for the walk that checks every string, an
 * array of 500,000 zeros 470-690 ms (load 14, two cores). Past this bound the text is refused
 * before it is parsed. It sits above 45,000 so that a body of tens of thousands of custom fields
 * still answers on `fields` (contract §13) rather than on `body`; at the bound, parsing and the
 * walk cost about a tenth of those figures.
 */
export const MAX_JSON_VALUES = 50_000;

const QUOTE = 0x22; // "
const COMMA = 0x2c; // ,

/**
 * Whether JSON text holds more than `max` values in its objects and arrays, counted by the commas
 * between them (outside strings): a container of n entries has n − 1, so this counts every entry
 * after each container's first. One pass with a counter and no allocation, skipping strings with
 * indexOf as lib/http/json-depth.ts does; malformed text is left for JSON.parse to refuse.
 *
 * Written here rather than taken from a package for the same reason as the depth scan: the
 * streaming parsers that could count as they go replace JSON.parse with a slower one.
 */
export function jsonHoldsMoreValuesThan(text: string, max: number = MAX_JSON_VALUES): boolean {
  let commas = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i);
      if (i === -1) return false; // an unclosed string: JSON.parse refuses it
    } else if (c === COMMA && ++commas >= max) {
      return true;
    }
  }
  return false;
}
