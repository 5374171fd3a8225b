import type { AwsS3Options } from "@uppy/aws-s3";
import type { Body, Meta } from "@uppy/core/utils";
import { PART_SIZE } from "../../storage/limits";
import type { TicketFile, UploadTickets } from "./tickets";

// The package exports its options, not the request types of the hook; derive them from the option.
type SignRequestFn = Extract<AwsS3Options<Meta, Body>, { signRequest: unknown }>["signRequest"];
type PresignableRequest = Parameters<SignRequestFn>[0];
type PresignedResponse = Awaited<ReturnType<SignRequestFn>>;

const escapeXml = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A URL that answers with `xml` without leaving the browser. Easel's API creates a multipart
 * upload in upload_prepare and completes it in upload_complete, so the S3 control calls
 * @uppy/aws-s3 makes itself (initiate, complete, abort, list) have nothing left to do on the
 * store: they get the answer the server already gave. Only bytes go to the store.
 */
export const xmlAnswer = (xml: string) => `data:application/xml;charset=utf-8,${encodeURIComponent(xml)}`;

/**
 * @uppy/aws-s3 v6's one hook, mapped onto Easel: object keys are Uppy file ids (generateObjectKey),
 * upload_prepare presigns the single PUT or every part, and the rest is answered from the ticket.
 */
export function easelSignRequest(tickets: UploadTickets, fileOf: (id: string) => TicketFile | undefined) {
  return async (req: PresignableRequest): Promise<PresignedResponse> => {
    const { key } = req;
    const uploadId = "uploadId" in req ? req.uploadId : undefined;
    if (uploadId === undefined) {
      const file = fileOf(key);
      if (!file) throw new Error("The file was removed");
      const ticket = await tickets.prepare(file);
      if (req.method === "PUT") {
        if (ticket.multipart_upload_id) throw new Error("The server expects a multipart upload for this size");
        return { url: ticket.upload_url };
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
      case "GET": // list parts on resume: the uploader still knows which parts it sent
        return { url: xmlAnswer("<ListPartsResult></ListPartsResult>") };
      case "DELETE": // abort: Easel has no abort call; an unfinished reservation expires after 24 h
        return { url: xmlAnswer("<AbortMultipartUploadResult></AbortMultipartUploadResult>") };
      default:
        throw new Error(`Unsupported storage request ${req.method}`);
    }
  };
}
