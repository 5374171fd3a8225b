import { describe, expect, it } from "vitest";
import { S3Error } from "./errors";
import { verifySigV4 } from "./sigv4";

// The worked examples of AWS's Signature Version 4 documentation for S3 (GET Object, header and
// query-string authentication), independent of any SDK.
const credentials = { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" };
const signedAt = new Date("2013-05-24T00:00:00Z");
const EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

function headerRequest(signature: string) {
  const url = "https://examplebucket.s3.amazonaws.com/test.txt";
  const req = new Request(url, {
    headers: {
      host: "examplebucket.s3.amazonaws.com",
      range: "bytes=0-9",
      "x-amz-content-sha256": EMPTY_SHA256,
      "x-amz-date": "20130524T000000Z",
      authorization: `AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=${signature}`,
    },
  });
  return { req, url: new URL(url) };
}

const presignedUrl = (signature: string) =>
  new URL(
    "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request" +
      `&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=${signature}`,
  );

function failure(fn: () => unknown): { code: string; status: number } {
  try {
    fn();
  } catch (err) {
    if (err instanceof S3Error) return { code: err.code, status: err.status };
    throw err;
  }
  throw new Error("expected an S3Error");
}

describe("verifySigV4", () => {
  it("accepts AWS's header-signed GET Object example, with its payload hash", () => {
    const { req, url } = headerRequest("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
    expect(verifySigV4(req, url, credentials, signedAt)).toEqual({ mode: "header", payload: { kind: "sha256", hex: EMPTY_SHA256 } });
  });

  it("refuses that example with one signature digit changed, or 16 minutes away from its time", () => {
    const { req, url } = headerRequest("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb42");
    expect(failure(() => verifySigV4(req, url, credentials, signedAt))).toEqual({ code: "SignatureDoesNotMatch", status: 403 });
    const good = headerRequest("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
    expect(failure(() => verifySigV4(good.req, good.url, credentials, new Date(signedAt.getTime() + 16 * 60_000)))).toEqual({ code: "RequestTimeTooSkewed", status: 403 });
  });

  it("accepts AWS's presigned GET Object example until it expires (24 h), then refuses it", () => {
    const url = presignedUrl("aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
    const req = new Request(url, { headers: { host: "examplebucket.s3.amazonaws.com" } });
    expect(verifySigV4(req, url, credentials, new Date(signedAt.getTime() + 86_399_000))).toEqual({ mode: "presigned", payload: { kind: "unsigned" } });
    expect(failure(() => verifySigV4(req, url, credentials, new Date(signedAt.getTime() + 86_401_000)))).toEqual({ code: "AccessDenied", status: 403 });
  });

  it("refuses a presigned URL used on another host or with another method", () => {
    const url = presignedUrl("aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
    const otherHost = new Request(url, { headers: { host: "elsewhere.example" } });
    expect(failure(() => verifySigV4(otherHost, url, credentials, signedAt))).toEqual({ code: "SignatureDoesNotMatch", status: 403 });
    const put = new Request(url, { method: "PUT", body: "x", headers: { host: "examplebucket.s3.amazonaws.com" } });
    expect(failure(() => verifySigV4(put, url, credentials, signedAt))).toEqual({ code: "SignatureDoesNotMatch", status: 403 });
  });

  it("refuses x-amz-* headers the signature does not cover, presigned or header-signed, naming them", () => {
    const url = presignedUrl("aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
    const withAcl = new Request(url, { headers: { host: "examplebucket.s3.amazonaws.com", "x-amz-acl": "public-read", "x-amz-meta-a": "1" } });
    let refused: unknown;
    try {
      verifySigV4(withAcl, url, credentials, signedAt);
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(S3Error);
    expect(refused).toMatchObject({ code: "AccessDenied", status: 403, message: "There were headers present in the request which were not signed", details: { HeadersNotSigned: "x-amz-acl, x-amz-meta-a" } });

    const { req } = headerRequest("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
    const headers = new Headers(req.headers);
    headers.set("x-amz-copy-source", "/examplebucket/other");
    const good = headerRequest("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
    expect(failure(() => verifySigV4(new Request(good.url, { headers }), good.url, credentials, signedAt))).toEqual({ code: "AccessDenied", status: 403 });
  });

  it("lets the unsigned payload hash (part of the signature anyway) and a CDN's request id through", () => {
    const url = presignedUrl("aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
    const req = new Request(url, { headers: { host: "examplebucket.s3.amazonaws.com", "x-amz-content-sha256": "UNSIGNED-PAYLOAD", "x-amz-cf-id": "abc", "x-amzn-trace-id": "Root=1" } });
    expect(verifySigV4(req, url, credentials, signedAt)).toEqual({ mode: "presigned", payload: { kind: "unsigned" } });
    // A payload hash other than the one signed still fails the signature.
    const other = new Request(url, { headers: { host: "examplebucket.s3.amazonaws.com", "x-amz-content-sha256": "0".repeat(64) } });
    expect(failure(() => verifySigV4(other, url, credentials, signedAt))).toEqual({ code: "SignatureDoesNotMatch", status: 403 });
  });

  it("refuses a presigned lifetime outside 1 s to 7 days with 403 AccessDenied, and a non-number as malformed", () => {
    const withExpires = (value: string) => {
      const url = presignedUrl("aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
      url.search = url.search.replace("X-Amz-Expires=86400", `X-Amz-Expires=${value}`);
      return { req: new Request(url, { headers: { host: "examplebucket.s3.amazonaws.com" } }), url };
    };
    const refusal = (value: string) => {
      const { req, url } = withExpires(value);
      try {
        verifySigV4(req, url, credentials, signedAt);
      } catch (err) {
        if (err instanceof S3Error) return { code: err.code, status: err.status, message: err.message };
        throw err;
      }
      throw new Error(`X-Amz-Expires=${value} was accepted`);
    };
    expect(refusal("604801")).toEqual({
      code: "AccessDenied",
      status: 403,
      message: "X-Amz-Expires must be less than a week (in seconds) that is, the given X-Amz-Expires must be less than 604800 seconds",
    });
    expect(refusal("0")).toMatchObject({ code: "AccessDenied", status: 403 });
    expect(refusal("-1")).toEqual({ code: "AccessDenied", status: 403, message: "X-Amz-Expires must be non-negative" });
    expect(refusal("soon")).toMatchObject({ code: "AuthorizationQueryParametersError", status: 400 });
    // The bounds themselves pass the lifetime check: they fail only the signature (it was made for 86400).
    expect(refusal("1")).toMatchObject({ code: "SignatureDoesNotMatch", status: 403 });
    expect(refusal("604800")).toMatchObject({ code: "SignatureDoesNotMatch", status: 403 });
  });

  it("names malformed authentication precisely", () => {
    const url = new URL("https://h.example/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=bad&X-Amz-Date=x");
    expect(failure(() => verifySigV4(new Request(url), url, credentials, signedAt))).toEqual({ code: "AuthorizationQueryParametersError", status: 400 });
    const v2 = new Request("https://h.example/b/k", { headers: { authorization: "AWS AKID:sig" } });
    expect(failure(() => verifySigV4(v2, new URL(v2.url), credentials, signedAt))).toEqual({ code: "InvalidRequest", status: 400 });
    const anonymous = new Request("https://h.example/b/k");
    expect(failure(() => verifySigV4(anonymous, new URL(anonymous.url), credentials, signedAt))).toEqual({ code: "AccessDenied", status: 403 });
  });
});
