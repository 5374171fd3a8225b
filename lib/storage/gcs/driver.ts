import type { Clock } from "../../clock";
import { DomainError } from "../../errors";
import type { StorageDriver } from "../types";
import type { ObjectOps } from "./local-objects";
import { signGcsUrl, type GcsSigner } from "./signer";

const GCS_CREATE_ONLY_HEADER = "x-goog-if-generation-match";

/**
 * The GCS driver (Kind A, resumable uploads). Upload URLs are V4 "resumable" signed URLs from
 * @google-cloud/storage, signed at Easel's clock: the client POSTs to one with
 * `x-goog-resumable: start`, then PUTs its bytes to the session it opens. Nothing is left to
 * complete afterwards: the object exists once its last byte has arrived.
 */
export function createGcsDriver(resolve: () => Promise<{ signer: GcsSigner; objects: ObjectOps }>, clock: Clock): StorageDriver {
  const objects = async () => (await resolve()).objects;
  return {
    kind: "gcs",

    async prepareUpload({ key, expiresAt }) {
      const { signer, objects: ops } = await resolve();
      await ops.ready();
      // A real bucket lets a resumable URL replace its object until it expires; signed with
      // `x-goog-if-generation-match: 0` (the client must send it) GCS refuses that with 412.
      // The embedded store never lets a signed URL replace an object, so its URLs need no header.
      const condition = signer.embedded ? {} : { extensionHeaders: { [GCS_CREATE_ONLY_HEADER]: "0" } };
      const uploadUrl = await signGcsUrl(signer, key, { action: "resumable", ...condition }, clock(), expiresAt);
      return { uploadUrl, multipartUploadId: null, partSize: null, partUrls: null, listPartsUrl: null };
    },

    async completeMultipart({ key }) {
      if (!(await (await objects()).head(key))) throw new DomainError("storage_object_not_found", "The resumable upload has not finished: the object is not in storage");
    },

    async abortMultipart() {
      // Resumable sessions are cancelled by the client (DELETE on the session URL) or expire on their own.
    },

    head: async (key) => (await objects()).head(key),
    md5: async (key) => (await objects()).md5(key),
    read: async (key, range) => (await objects()).read(key, range),
    write: async (key, body, contentType) => (await objects()).write(key, body, contentType),
    copy: async (fromKey, toKey) => (await objects()).copy(fromKey, toKey),
    delete: async (key) => (await objects()).delete(key),

    async signedReadUrl(key, { expiresInSeconds, responseContentType }) {
      const { signer } = await resolve();
      const now = clock();
      return signGcsUrl(signer, key, { action: "read", responseType: responseContentType }, now, new Date(now.getTime() + expiresInSeconds * 1000));
    },
  };
}
