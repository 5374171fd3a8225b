import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson, signedBody, signingKeyFromSecret } from "./signing";

describe("signing", () => {
  it("canonicalises JSON: sorted keys at every depth, undefined dropped", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 0, y: "é" }], c: undefined } })).toBe('{"a":{"d":[1,{"y":"é","z":0}]},"b":1}');
  });

  it("reads values as JSON.stringify does (toJSON, dropped functions, null in arrays)", () => {
    const value = { at: new Date(Date.UTC(2030, 0, 2)), f: () => 1, list: [undefined, () => 1, NaN, -0], n: { toJSON: () => ({ y: 1, x: [2] }) } };
    expect(canonicalJson(value)).toBe(canonicalJson(JSON.parse(JSON.stringify(value))));
    expect(canonicalJson(value)).toBe('{"at":"2030-01-02T00:00:00.000Z","list":[null,null,null,0],"n":{"x":[2],"y":1}}');
  });

  it("signs t and the HMAC of body+t with the key minus its prefix", () => {
    const key = signingKeyFromSecret("s");
    expect(key).toMatch(/^signkey-prod-[0-9a-f]{64}$/);
    const { body, signature } = signedBody({ b: 2, a: 1 }, key, 1_800_000_000_000);
    expect(body).toBe('{"a":1,"b":2}');
    const expected = crypto.createHmac("sha256", key.slice("signkey-prod-".length)).update(`${body}1800000000`).digest("hex");
    expect(signature).toBe(`t=1800000000&s=${expected}`);
  });
});
