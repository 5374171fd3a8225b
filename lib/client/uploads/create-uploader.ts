import AwsS3 from "@uppy/aws-s3";
import Uppy from "@uppy/core";
import type { Body, Meta } from "@uppy/core/utils";
import GoldenRetriever, { type GoldenRetrieverOptions } from "@uppy/golden-retriever";
import { MULTIPART_THRESHOLD, PART_SIZE } from "../../storage/limits";
import { api } from "../api";
import { describeError } from "../errors";
import type { Asset, StorageKind } from "../types";
import EaselGcsUploader from "./gcs-resumable";
import { restoreDecision } from "./resume";
import { easelSignRequest } from "./s3-sign-request";
import { TicketStore } from "./ticket-store";
import { UploadTickets, mediaTypeOf, type UploadTarget } from "./tickets";

export type EaselUppy = Uppy<Meta, Body>;

const GiB = 1024 * 1024 * 1024;
/**
 * How much of the queue's bytes Golden Retriever copies into IndexedDB. It hands its `indexedDB`
 * option on to its blob store as is, and that store keeps files of at most 10 MiB unless told
 * otherwise (limits its option type does not name). A larger file comes back as a ghost: the
 * Dashboard asks for it again, and its upload then resumes from storage all the same.
 */
const QUEUE_BLOBS: NonNullable<GoldenRetrieverOptions["indexedDB"]> & { maxFileSize: number; maxTotalSize: number } = { maxFileSize: 2 * GiB, maxTotalSize: 4 * GiB };

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
 * After Golden Retriever put the queue back (a reload): each file carries on with the reservation
 * saved for the tab, or starts over (or is dropped, when its bytes went up but the reservation
 * naming them is gone), with a message saying why.
 */
function onRestored(uppy: EaselUppy, tickets: UploadTickets) {
  return () => {
    const now = new Date();
    for (const file of uppy.getFiles()) {
      const decision = restoreDecision(
        { size: file.size, hasData: Boolean(file.data) && !file.isGhost, uploadComplete: Boolean(file.progress.uploadComplete), s3UploadId: file.s3Multipart?.uploadId ?? null },
        tickets.saved(file.id),
        now,
      );
      if (decision.action === "resume") continue;
      tickets.forget(file.id);
      const name = file.name ?? "A file";
      if (decision.action === "drop") {
        uppy.removeFile(file.id);
        uppy.info(`${name}: ${decision.reason}. Add it again to upload it.`, "warning", 10_000);
        continue;
      }
      uppy.setFileState(file.id, {
        s3Multipart: undefined,
        progress: { ...file.progress, uploadStarted: null, bytesUploaded: false, percentage: 0, uploadComplete: false },
      });
      uppy.info(`${name}: ${decision.reason}, so it starts over.`, "warning", 10_000);
    }
  };
}

/**
 * An Uppy for one workspace and target. s3 workspaces upload through @uppy/aws-s3 (single PUT
 * below 5 MiB, 8 MiB parts from 5 MiB on, as upload_prepare presigns them); gcs workspaces through
 * Easel's resumable uploader. Golden Retriever keeps the queue (files in IndexedDB) across a
 * reload; the reservations are kept per tab (ticket-store.ts), so a restored multipart upload
 * lists its stored parts and a resumable one asks its session, and neither sends a stored byte
 * again. A small s3 file (one PUT) starts that PUT over. Import only from client components.
 */
export function createEaselUppy(opts: {
  slug: string;
  storageKind: StorageKind;
  target: UploadTarget;
  /** Identity of the target (board or asset): the restored queue of one target is never another's. */
  targetKey: string;
  onAsset: (asset: Asset) => void;
  single?: boolean;
}): EaselUppy {
  const uppy: EaselUppy = new Uppy({
    id: `easel:${opts.slug}:${opts.targetKey}`,
    autoProceed: false,
    restrictions: { minFileSize: 1, maxNumberOfFiles: opts.single ? 1 : null },
  });
  const warn = (message: string) => uppy.log(message, "warning");
  const tickets = new UploadTickets(opts.slug, opts.target, new TicketStore(uppy.getID(), TicketStore.browserStorage(warn), warn));
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
  uppy.on("file-removed", (file) => tickets.forget(file.id));
  uppy.on("restored", onRestored(uppy, tickets));
  // Same lifetime as the reservations (24 h): a queue older than that has nothing to resume with.
  uppy.use(GoldenRetriever, { expires: 24 * 60 * 60 * 1000, indexedDB: QUEUE_BLOBS });
  return uppy;
}
