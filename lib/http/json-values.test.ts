import { describe, expect, it } from "vitest";
import { closingQuote } from "./json-depth";
import { jsonHoldsMoreValuesThan } from "./json-values";

describe("jsonHoldsMoreValuesThan", () => {
  it("counts the entries of objects and arrays by the commas between them", () => {
    expect(jsonHoldsMoreValuesThan("[1,2,3]", 3)).toBe(false);
    expect(jsonHoldsMoreValuesThan("[1,2,3,4]", 3)).toBe(true);
    expect(jsonHoldsMoreValuesThan('{"a":1,"b":[2,3]}', 3)).toBe(false);
    expect(jsonHoldsMoreValuesThan('{"a":1,"b":[2,3,4]}', 3)).toBe(true);
  });

  it("does not count commas inside strings, escaped quotes included", () => {
    expect(jsonHoldsMoreValuesThan('["a,b,c,d,e"]', 2)).toBe(false);
    expect(jsonHoldsMoreValuesThan('["x\\",y,z,w", 1]', 2)).toBe(false);
    expect(jsonHoldsMoreValuesThan('["x\\\\", 1, 2]', 2)).toBe(true);
  });

  it("leaves an unclosed string to JSON.parse", () => {
    expect(jsonHoldsMoreValuesThan('[1, "never closed, , , ,', 2)).toBe(false);
  });
});

describe("closingQuote", () => {
  it("finds the quote that ends a string, past escaped ones", () => {
    expect(closingQuote('"abc"', 0)).toBe(4);
    expect(closingQuote('"a\\"b"', 0)).toBe(5);
    expect(closingQuote('"a\\\\"b"', 0)).toBe(4); // two backslashes: the quote after them is not escaped
    expect(closingQuote('"abc', 0)).toBe(-1);
  });
});
