import { describe, expect, it } from "vitest";
import type { PreparedUpload } from "../types";
import { easelSignRequest } from "./s3-sign-request";
import type { UploadTickets } from "./tickets";

const MiB = 1024 * 1024;

function ticketsFor(prepared: PreparedUpload) {
  const prepares: string[] = [];
  const tickets = {
    prepare: async (file: { id: string }) => {
      prepares.push(file.id);
      return prepared;
    },
    get: async () => prepared,
  } as unknown as UploadTickets;
  return { tickets, prepares };
}

const file = (size: number) => () => ({ id: "uppy-f1", name: "clip.mp4", type: "video/mp4", size });
const xmlOf = (url: string) => {
  expect(url.startsWith("data:application/xml")).toBe(true);
  return decodeURIComponent(url.slice(url.indexOf(",") + 1));
};

describe("easelSignRequest (@uppy/aws-s3 v6 → upload_prepare)", () => {
  const single: PreparedUpload = { storage_provider: "s3", signed_storage_id: "sid", upload_url: "http://s/put?sig", multipart_upload_id: null, part_size: null, part_urls: null, list_parts_url: null, expires_at: "" };
  const multi: PreparedUpload = { ...single, upload_url: "http://s/p1", multipart_upload_id: "up-1", part_size: 8 * MiB, part_urls: ["http://s/p1", "http://s/p2"] };

  it("a single PUT goes to the presigned upload_url, prepared once per file", async () => {
    const { tickets, prepares } = ticketsFor(single);
    const sign = easelSignRequest(tickets, file(MiB));
    expect(await sign({ method: "PUT", key: "uppy-f1" })).toEqual({ url: "http://s/put?sig", headers: {} });
    expect(prepares).toEqual(["uppy-f1"]);
  });

  it("a real bucket's upload_url signed with If-None-Match gets the header sent with the PUT", async () => {
    const url = "https://bucket.s3.amazonaws.com/k?X-Amz-SignedHeaders=host%3Bif-none-match&X-Amz-Signature=ab";
    const { tickets } = ticketsFor({ ...single, upload_url: url });
    const sign = easelSignRequest(tickets, file(MiB));
    expect(await sign({ method: "PUT", key: "uppy-f1" })).toEqual({ url, headers: { "If-None-Match": "*" } });
  });

  it("initiate answers with upload_prepare's multipart_upload_id; parts go to part_urls in order", async () => {
    const { tickets } = ticketsFor(multi);
    const sign = easelSignRequest(tickets, file(9 * MiB));
    const initiate = await sign({ method: "POST", key: "uppy-f1" });
    expect(xmlOf(initiate.url)).toContain("<UploadId>up-1</UploadId>");
    expect((await sign({ method: "PUT", key: "uppy-f1", uploadId: "up-1", partNumber: 2 })).url).toBe("http://s/p2");
    await expect(sign({ method: "PUT", key: "uppy-f1", uploadId: "up-1", partNumber: 3 })).rejects.toThrow(/part 3/);
  });

  it("complete and abort are answered without a storage call", async () => {
    const { tickets } = ticketsFor(multi);
    const sign = easelSignRequest(tickets, file(9 * MiB), async () => {
      throw new Error("no storage call expected");
    });
    const complete = xmlOf((await sign({ method: "POST", key: "uppy-f1", uploadId: "up-1" })).url);
    expect(complete).toMatch(/<CompleteMultipartUploadResult><Location>.+<\/Location><Key>uppy-f1<\/Key>/);
    expect(xmlOf((await sign({ method: "DELETE", key: "uppy-f1", uploadId: "up-1" })).url)).toContain("AbortMultipartUploadResult");
  });

  it("list (a resumed upload) asks the presigned ListParts URL and answers only whole parts", async () => {
    const asked: string[] = [];
    const listed =
      "<ListPartsResult><Part><PartNumber>2</PartNumber><ETag>&quot;e2&quot;</ETag><Size>1048576</Size></Part>" +
      "<Part><PartNumber>1</PartNumber><ETag>&quot;e1&quot;</ETag><Size>8388608</Size></Part></ListPartsResult>";
    const sign = easelSignRequest(ticketsFor({ ...multi, list_parts_url: "http://s/list?sig" }).tickets, file(9 * MiB), async (url) => {
      asked.push(url);
      return { status: 200, text: listed };
    });
    const answer = xmlOf((await sign({ method: "GET", key: "uppy-f1", uploadId: "up-1" })).url);
    expect(asked).toEqual(["http://s/list?sig"]);
    // Part 2 of a 9 MiB file holds 1 MiB: both parts are whole and kept, in order.
    expect(answer).toBe("<ListPartsResult><Part><PartNumber>1</PartNumber><ETag>e1</ETag><Size>8388608</Size></Part><Part><PartNumber>2</PartNumber><ETag>e2</ETag><Size>1048576</Size></Part></ListPartsResult>");
  });

  it("list without a ListParts URL (an older server) answers no parts, so every part is sent", async () => {
    const sign = easelSignRequest(ticketsFor(multi).tickets, file(9 * MiB), async () => {
      throw new Error("no storage call expected");
    });
    expect(xmlOf((await sign({ method: "GET", key: "uppy-f1", uploadId: "up-1" })).url)).toBe("<ListPartsResult></ListPartsResult>");
  });

  it("a listing storage no longer has (expired upload) fails with words that say what to do", async () => {
    const sign = easelSignRequest(ticketsFor({ ...multi, list_parts_url: "http://s/list?sig" }).tickets, file(9 * MiB), async () => ({ status: 404, text: "<Error/>" }));
    await expect(sign({ method: "GET", key: "uppy-f1", uploadId: "up-1" })).rejects.toThrow(/no longer open in storage.+add it again/);
  });

  it("refuses a plan that does not match what the server prepared", async () => {
    await expect(easelSignRequest(ticketsFor(multi).tickets, file(9 * MiB))({ method: "PUT", key: "uppy-f1" })).rejects.toThrow(/multipart/);
    await expect(easelSignRequest(ticketsFor(single).tickets, file(MiB))({ method: "POST", key: "uppy-f1" })).rejects.toThrow(/single-part/);
    const odd = ticketsFor({ ...multi, part_size: 16 * MiB }).tickets;
    await expect(easelSignRequest(odd, file(9 * MiB))({ method: "POST", key: "uppy-f1" })).rejects.toThrow(/part size/);
  });

  it("escapes ids in the XML it answers with", async () => {
    const { tickets } = ticketsFor({ ...multi, multipart_upload_id: "a<b&c" });
    expect(xmlOf((await easelSignRequest(tickets, file(9 * MiB))({ method: "POST", key: "uppy-f1" })).url)).toContain("<UploadId>a&#60;b&#38;c</UploadId>");
  });
});
