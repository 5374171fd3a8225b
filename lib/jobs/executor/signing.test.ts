import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson, signedBody, signingKeyFromSecret } from "./signing";

describe("signing", () => {
  it("canonicalises JSON: sorted keys at every depth, undefined dropped", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 0, y: "é" }], c: undefined } })).toBe('{"a":{"d":[1,{"y":"é","z":0}]},"b":1}');
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
