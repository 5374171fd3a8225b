import { beforeAll, describe, expect, it } from "vitest";
import * as mediaRoute from "../../app/media/[...path]/route";
import * as gcsRoute from "../../app/storage/gcs/[[...path]]/route";
import * as s3Route from "../../app/storage/s3/[[...path]]/route";
import { embeddedLayout } from "../../lib/objectstore";
import { createBucket } from "../../lib/objectstore/disk/objects";
import { useTestDeps } from "../helpers/deps";

/**
 * The error answers of the routes that serve stored bytes (/media, /storage) are JSON or XML that
 * no browser may read as anything else: each says `X-Content-Type-Options: nosniff`, as the bytes
 * those routes serve do (contract §12). The API's own answers get it from next.config.ts.
 */
let deps: Awaited<ReturnType<typeof useTestDeps>>;

beforeAll(async () => {
  deps = await useTestDeps();
  await createBucket(embeddedLayout(), "easel", deps.clock());
});

const media = (path: string) => mediaRoute.GET(new Request(`http://easel.test/media/${path}`), { params: Promise.resolve({ path: path.split("/") }) });

describe("error bodies of /media and /storage carry nosniff", () => {
  it("/media: a malformed path, an unknown asset and a bad signature answer the JSON envelope with nosniff", async () => {
    for (const path of ["nonsense", "a1b2c3d4e5/display?exp=1&sig=x", "a1b2c3d4e5/display"]) {
      const res = await media(path);
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.headers.get("content-type"), path).toMatch(/^application\/json/);
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
    }
  });

  it("/storage/s3: an unsigned GET answers S3's XML error with nosniff", async () => {
    const res = await s3Route.GET(new Request("http://easel.test/storage/s3/easel/ws/1/nothing", { headers: { host: "easel.test" } }));
    expect(res.status).toBe(403);
    expect(res.headers.get("content-type")).toMatch(/^application\/xml/);
    expect(await res.text()).toContain("<Error>");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("/storage/gcs: an unsigned GET answers GCS's XML error with nosniff", async () => {
    const res = await gcsRoute.GET(new Request("http://easel.test/storage/gcs/easel/ws/1/nothing", { headers: { host: "easel.test" } }));
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.headers.get("content-type")).toMatch(/^application\/xml/);
    expect(await res.text()).toContain("<Error>");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });
});
