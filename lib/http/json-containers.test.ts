import { describe, expect, it } from "vitest";
import { firstContainerOver } from "./json-containers";

describe("firstContainerOver", () => {
  it("names the keys leading to the first container over the bound", () => {
    const fields = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}`, "v"]));
    expect(firstContainerOver(JSON.stringify({ asset: { title: "t", fields } }), 100)).toEqual([null, "asset", "fields"]);
    expect(firstContainerOver(JSON.stringify({ asset: { fields: { ...fields, f100: undefined } } }), 100)).toBeNull();
  });

  it("counts entries, not commas inside strings or nested containers", () => {
    expect(firstContainerOver('{"a":["x,y,z,w"],"b":{"c":1,"d":2}}', 2)).toBeNull();
    expect(firstContainerOver('{"a":[1,2,3]}', 2)).toEqual([null, "a"]);
    expect(firstContainerOver("[[1,2],[3,4,5]]", 2)).toEqual([null, null]);
  });

  it("decodes escaped keys, and a string value before a container is no key", () => {
    expect(firstContainerOver('{"a\\"b":[1,2,3]}', 2)).toEqual([null, 'a"b']);
    expect(firstContainerOver('["k",[1,2,3]]', 2)).toEqual([null, null]);
  });

  it("leaves malformed text to JSON.parse", () => {
    expect(firstContainerOver('{"a":[1,2,3', 5)).toBeNull();
    expect(firstContainerOver('{"a": "never closed, , ,', 1)).toBeNull();
  });
});
