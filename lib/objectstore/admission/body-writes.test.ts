import { describe, expect, it } from "vitest";
import { bucketAndKey, gcsBodyWriteKey, s3BodyWriteKey } from "./body-writes";

const url = (path: string) => new URL(path, "http://store.invalid");

describe("which requests write a body, and the upload URL each counts against", () => {
  it("S3: a PUT and a part are body writes, each part its own URL; copies and other requests are not", () => {
    expect(s3BodyWriteKey("PUT", "b", "ws/1/originals/a", url("/s3/b/ws/1/originals/a?X-Amz-Signature=x"), false)).toBe("s3:b/ws/1/originals/a");
    expect(s3BodyWriteKey("PUT", "b", "k", url("/s3/b/k?partNumber=2&uploadId=U"), false)).toBe("s3:b/k?uploadId=U&partNumber=2");
    expect(s3BodyWriteKey("PUT", "b", "k", url("/s3/b/k?partNumber=3&uploadId=U"), false)).toBe("s3:b/k?uploadId=U&partNumber=3");
    expect(s3BodyWriteKey("PUT", "b", "k", url("/s3/b/k"), true)).toBeNull();
    expect(s3BodyWriteKey("PUT", "b", "k", url("/s3/b/k?tagging"), false)).toBeNull();
    expect(s3BodyWriteKey("PUT", "b", "", url("/s3/b"), false)).toBeNull();
    expect(s3BodyWriteKey("GET", "b", "k", url("/s3/b/k"), false)).toBeNull();
    expect(s3BodyWriteKey("POST", "b", "k", url("/s3/b/k?uploadId=U"), false)).toBeNull();
  });

  it("GCS: a chunk counts against its session, a signed PUT against its object", () => {
    expect(gcsBodyWriteKey("PUT", "b", "k", url("/gcs/b/k?upload_id=S1"))).toBe("gcs-session:S1");
    expect(gcsBodyWriteKey("PUT", "b", "k", url("/gcs/b/k?X-Goog-Signature=x"))).toBe("gcs:b/k");
    expect(gcsBodyWriteKey("POST", "b", "k", url("/gcs/b/k"))).toBeNull();
  });

  it("reads bucket and key as the handlers do", () => {
    expect(bucketAndKey("/storage/s3/easel/ws/3/originals/a%20b", "/storage/s3")).toEqual({ bucket: "easel", key: "ws/3/originals/a b" });
    expect(bucketAndKey("/storage/s3/easel", "/storage/s3")).toEqual({ bucket: "easel", key: "" });
  });
});
