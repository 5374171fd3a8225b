import type { AwsS3Options } from "@uppy/aws-s3";
import type { Body, Meta } from "@uppy/core/utils";
import { PART_SIZE } from "../../storage/limits";
import { listPartsAnswer, listedParts, partsToKeep } from "./resume";
import { signedConditionHeaders } from "./signed-conditions";
import type { TicketFile, UploadTickets } from "./tickets";

// The package exports its options, not the request types of the hook; derive them from the option.
type SignRequestFn = Extract<AwsS3Options<Meta, Body>, { signRequest: unknown }>["signRequest"];
type PresignableRequest = Parameters<SignRequestFn>[0];
type PresignedResponse = Awaited<ReturnType<SignRequestFn>>;

const escapeXml = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** Fetches a URL's text; the browser's fetch, or the in-process store in tests. */
export type FetchText = (url: string) => Promise<{ status: number; text: string }>;

const browserFetchText: FetchText = async (url) => {
  const res = await fetch(url, { method: "GET", credentials: "omit", cache: "no-store" });
  return { status: res.status, text: await res.text() };
};

/**
 * The parts of a multipart upload storage already holds whole, asked through the presigned
 * ListParts URL upload_prepare handed out, answered to @uppy/aws-s3 as a ListParts document so it
 * sends only the others. A server without that URL gets an empty list: every part is sent again.
 */
async function storedPartsAnswer(ticket: { list_parts_url?: string | null }, size: number, fetchText: FetchText): Promise<string> {
  if (!ticket.list_parts_url) return listPartsAnswer([]);
  const res = await fetchText(ticket.list_parts_url);
  if (res.status === 404) throw new Error("This upload is no longer open in storage (it expired or was cancelled). Remove the file and add it again.");
  if (res.status !== 200) throw new Error(`Storage answered HTTP ${res.status} when asked which parts arrived`);
  return listPartsAnswer(partsToKeep(size, listedParts(res.text)));
}

/**
 * A URL that answers with `xml` without leaving the browser. Easel's API creates a multipart
 * upload in upload_prepare and completes it in upload_complete, so the S3 control calls
 * @uppy/aws-s3 makes itself (initiate, complete, abort) have nothing left to do on the store:
 * they get the answer the server already gave. Only bytes, and the parts listing a resumed
 * upload asks for, go to the store.
 */
export const xmlAnswer = (xml: string) => `data:application/xml;charset=utf-8,${encodeURIComponent(xml)}`;

/**
 * @uppy/aws-s3 v6's one hook, mapped onto Easel: object keys are Uppy file ids (generateObjectKey),
 * upload_prepare presigns the single PUT, every part and the parts listing; the rest is answered
 * from the ticket.
 */
export function easelSignRequest(tickets: UploadTickets, fileOf: (id: string) => TicketFile | undefined, fetchText: FetchText = browserFetchText) {
  return async (req: PresignableRequest): Promise<PresignedResponse> => {
    const { key } = req;
    const uploadId = "uploadId" in req ? req.uploadId : undefined;
    if (uploadId === undefined) {
      const file = fileOf(key);
      if (!file) throw new Error("The file was removed");
      const ticket = await tickets.prepare(file);
      if (req.method === "PUT") {
        if (ticket.multipart_upload_id) throw new Error("The server expects a multipart upload for this size");
        return { url: ticket.upload_url, headers: signedConditionHeaders(ticket.upload_url) };
      }
      if (req.method === "POST") {
        if (!ticket.multipart_upload_id || !ticket.part_urls) throw new Error("The server prepared a single-part upload for this size");
        if (ticket.part_size !== PART_SIZE) throw new Error(`Unexpected part size ${ticket.part_size}`);
        const id = escapeXml(ticket.multipart_upload_id);
        return { url: xmlAnswer(`<InitiateMultipartUploadResult><Key>${escapeXml(key)}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`) };
      }
      throw new Error(`Unsupported storage request ${req.method}`);
    }
    if ("partNumber" in req && req.method === "PUT") {
      const ticket = await tickets.get(key);
      const url = ticket.part_urls?.[req.partNumber - 1];
      if (!url) throw new Error(`No presigned URL for part ${req.partNumber}`);
      return { url };
    }
    switch (req.method) {
      case "POST": // complete: upload_complete lists and assembles the parts after the upload (postprocessor)
        return { url: xmlAnswer(`<CompleteMultipartUploadResult><Location>easel:${escapeXml(key)}</Location><Key>${escapeXml(key)}</Key></CompleteMultipartUploadResult>`) };
      case "GET": {
        // list parts on resume (after a reload): what storage holds, from the presigned ListParts URL
        const file = fileOf(key);
        if (!file?.size) throw new Error("The file was removed");
        return { url: xmlAnswer(await storedPartsAnswer(await tickets.get(key), file.size, fetchText)) };
      }
      case "DELETE": // abort: Easel has no abort call; an unfinished reservation expires after 24 h
        return { url: xmlAnswer("<AbortMultipartUploadResult></AbortMultipartUploadResult>") };
      default:
        throw new Error(`Unsupported storage request ${req.method}`);
    }
  };
}
