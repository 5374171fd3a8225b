import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DomainError } from "../errors";
import { captureLogs } from "../log/capture";
import { withLogContext } from "../log/logger.mjs";
import { requestIdFor, toErrorResponse } from "./envelope";

let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  logs = captureLogs();
});
afterEach(() => logs.restore());

const request = (headers: Record<string, string> = {}) => new Request("http://127.0.0.1/v1/acme/assets", { headers });

describe("an unexpected error", () => {
  it("answers a generic 500 and logs the error with the id of the request it ran in (Easel's server's log context)", async () => {
    const res = withLogContext({ request_id: "ctx-7" }, () => toErrorResponse(new Error("relation \"assets\" is locked"), request({ "x-request-id": "from-header" })));
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ errors: [{ message: "Internal error", extensions: { code: "internal" } }] });
    const [line] = logs.lines();
    expect(line).toMatchObject({ level: "error", request_id: "ctx-7", msg: "unhandled error; answered 500 internal", err: { type: "Error", message: 'relation "assets" is locked' } });
  });

  it("without a log context (next dev), takes the id from the request's X-Request-Id header", () => {
    toErrorResponse(new Error("boom"), request({ "x-request-id": "proxy-abc-123" }));
    expect(logs.lines()[0]).toMatchObject({ level: "error", request_id: "proxy-abc-123" });
  });

  it("a malformed or missing header gives no id rather than a wrong one", () => {
    expect(requestIdFor(request({ "x-request-id": "has spaces in it" }))).toBeUndefined();
    expect(requestIdFor(request({ "x-request-id": "x".repeat(129) }))).toBeUndefined();
    expect(requestIdFor(request())).toBeUndefined();
    expect(requestIdFor()).toBeUndefined();
    toErrorResponse(new Error("boom"));
    expect(logs.lines()[0].request_id).toBeUndefined();
  });

  it("a token or presigned URL in the error reaches neither the answer nor the log", async () => {
    const token = "easel_Q2w3E4r5T6y7U8i9O0pA";
    const url = "https://easel.s3.amazonaws.com/k?X-Amz-Signature=0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9";
    const res = toErrorResponse(new Error(`PUT ${url} with Bearer ${token} failed`), request({ authorization: `Bearer ${token}` }));
    expect(await res.text()).not.toContain(token);
    expect(logs.text()).not.toContain(token);
    expect(logs.text()).not.toContain("0a1b2c3d4e5f6071");
    expect(logs.lines()[0].err).toMatchObject({ message: "PUT https://easel.s3.amazonaws.com/k?X-Amz-Signature=[redacted] with Bearer [redacted] failed" });
  });
});

it("a domain error is the caller's answer, not logged", () => {
  const res = toErrorResponse(new DomainError("asset_not_found", "Asset not found"), request());
  expect(res.status).toBe(404);
  expect(logs.lines()).toEqual([]);
});
