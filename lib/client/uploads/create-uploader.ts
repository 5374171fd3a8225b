import AwsS3 from "@uppy/aws-s3";
import Uppy from "@uppy/core";
import type { Body, Meta } from "@uppy/core/utils";
import { MULTIPART_THRESHOLD, PART_SIZE } from "../../storage/limits";
import { api } from "../api";
import { describeError } from "../errors";
import type { Asset, StorageKind } from "../types";
import EaselGcsUploader from "./gcs-resumable";
import { easelSignRequest } from "./s3-sign-request";
import { UploadTickets, mediaTypeOf, type UploadTarget } from "./tickets";

export type EaselUppy = Uppy<Meta, Body>;

/**
 * After the bytes are in storage: upload_complete makes the asset (assembling a multipart upload
 * server-side), or a version-writing PATCH makes them the asset's new head. A failure here marks
 * only that file failed, with the API's error in plain words.
 */
function finisher(uppy: EaselUppy, tickets: UploadTickets, onAsset: (asset: Asset) => void) {
  return async (fileIDs: string[]) => {
    for (const id of fileIDs) {
      const file = uppy.getFile(id);
      if (!file || file.error || !file.progress.uploadComplete) continue;
      uppy.emit("postprocess-progress", file, { mode: "indeterminate", message: "Saving…" });
      try {
        const ticket = await tickets.get(id);
        const target = tickets.target;
        const asset =
          target.kind === "asset"
            ? (await api.assets.completeUpload(tickets.slug, {
                signed_storage_id: ticket.signed_storage_id,
                multipart_upload_id: ticket.multipart_upload_id ?? undefined,
                title: file.name,
                collection_token: target.collectionToken,
              })).data
            : (await api.assets.update(tickets.slug, target.assetToken, {
                create_version: true,
                signed_storage_id: ticket.signed_storage_id,
                media_type: mediaTypeOf({ id, type: file.type, size: file.size }),
                ...(target.comment().trim() ? { comment: target.comment().trim() } : {}),
              })).data;
        uppy.setFileMeta(id, { easelAssetToken: asset.token });
        uppy.emit("postprocess-complete", uppy.getFile(id));
        onAsset(asset);
      } catch (err) {
        uppy.emit("upload-error", uppy.getFile(id), { name: "EaselError", message: describeError(err) });
      } finally {
        tickets.forget(id);
      }
    }
  };
}

/**
 * An Uppy for one workspace and target. s3 workspaces upload through @uppy/aws-s3 (single PUT
 * below 5 MiB, 8 MiB parts from 5 MiB on, as upload_prepare presigns them); gcs workspaces through
 * Easel's resumable uploader. Import only from client components.
 */
export function createEaselUppy(opts: { slug: string; storageKind: StorageKind; target: UploadTarget; onAsset: (asset: Asset) => void; single?: boolean }): EaselUppy {
  const uppy: EaselUppy = new Uppy({
    id: `easel-${opts.target.kind}`,
    autoProceed: false,
    restrictions: { minFileSize: 1, maxNumberOfFiles: opts.single ? 1 : null },
  });
  const tickets = new UploadTickets(opts.slug, opts.target);
  if (opts.storageKind === "s3") {
    uppy.use(AwsS3, {
      id: "EaselS3",
      limit: 3,
      shouldUseMultipart: (file) => (file.size ?? 0) >= MULTIPART_THRESHOLD,
      getChunkSize: () => PART_SIZE,
      generateObjectKey: (file) => file.id,
      signRequest: easelSignRequest(tickets, (id) => {
        const file = uppy.getFile(id);
        return file ? { id, name: file.name, type: file.type, size: file.size } : undefined;
      }),
    });
  } else {
    uppy.use(EaselGcsUploader, { tickets, limit: 3 });
  }
  uppy.addPostProcessor(finisher(uppy, tickets, opts.onAsset));
  return uppy;
}
