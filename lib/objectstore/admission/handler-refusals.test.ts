import { describe, expect, it } from "vitest";
import { bodyTaken } from "../../http/request-body";
import { layout } from "../disk/layout";
import { handleGcsRequest } from "../gcs/handler";
import { handleS3Request } from "../s3/handler";
import type { BodyAdmission } from "./store-admission";

/**
 * The handlers' own admission, used where the route files serve the store (`next dev`, Easel
 * without its server): a refused body answers at once, unread, in the protocol's terms.
 */
const refuseAll: BodyAdmission = () => ({ admitted: false, reason: "upload_url" });
const lay = layout("/nonexistent/easel-objects");
const never = () => Promise.reject(new Error("a refused body must not reach authentication"));
const put = (url: string) => new Request(url, { method: "PUT", body: "x".repeat(1000), headers: { "content-length": "1000" }, duplex: "half" } as RequestInit);

describe("store handlers refuse a body without a slot", () => {
  it("S3: 503 SlowDown with Retry-After and Connection: close, body unread, before the signature is looked at", async () => {
    const req = put("http://127.0.0.1/storage/s3/easel/ws/1/originals/a?X-Amz-Signature=x");
    const res = await handleS3Request(req, { lay, credentials: never, clock: () => new Date(), mountPath: "/storage/s3", admitBody: refuseAll });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(res.headers.get("connection")).toBe("close");
    expect(await res.text()).toContain("<Code>SlowDown</Code>");
    expect(bodyTaken(req)).toBe(false);
  });

  it("GCS: 429 with Retry-After and Connection: close, body unread", async () => {
    const req = put("http://127.0.0.1/storage/gcs/easel/ws/1/originals/a?X-Goog-Signature=x");
    const res = await handleGcsRequest(req, { lay, identity: never, clock: () => new Date(), mountPath: "/storage/gcs", admitBody: refuseAll });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(res.headers.get("connection")).toBe("close");
    expect(await res.text()).toContain("<Code>SlowDown</Code>");
    expect(bodyTaken(req)).toBe(false);
  });
});
