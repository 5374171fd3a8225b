import { describe, expect, it } from "vitest";
import { signedConditionHeaders } from "./signed-conditions";

describe("signedConditionHeaders", () => {
  it.each([
    ["an S3 URL signed with If-None-Match", "https://b.s3.amazonaws.com/k?X-Amz-SignedHeaders=host%3Bif-none-match&X-Amz-Signature=ab", { "If-None-Match": "*" }],
    ["a GCS URL signed with x-goog-if-generation-match", "https://storage.googleapis.com/b/k?X-Goog-SignedHeaders=host%3Bx-goog-if-generation-match%3Bx-goog-resumable", { "x-goog-if-generation-match": "0" }],
    ["the embedded store's S3 URL (host only)", "http://localhost:3000/storage/s3/easel/k?X-Amz-SignedHeaders=host", {}],
    ["a URL without signed headers", "http://localhost:3000/storage/s3/easel/k", {}],
    ["something that is no URL", "not a url", {}],
  ])("%s", (_label, url, headers) => {
    expect(signedConditionHeaders(url)).toEqual(headers);
  });
});
