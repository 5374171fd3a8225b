import { api } from "../api";
import type { PreparedUpload } from "../types";

/** What the uploaded bytes become: a new asset (optionally on a board) or a new version of an asset. */
export type UploadTarget =
  | { kind: "asset"; collectionToken?: string }
  | { kind: "version"; assetToken: string; comment: () => string };

export type TicketFile = { id: string; name?: string; type?: string; size: number | null };

export const mediaTypeOf = (file: TicketFile) => file.type || "application/octet-stream";

/**
 * One upload_prepare per file, remembered by Uppy file id until the file is finished. Prepare
 * reserves the upload and presigns where its bytes go; the uploaders only send bytes there.
 */
export class UploadTickets {
  readonly #pending = new Map<string, Promise<PreparedUpload>>();

  constructor(
    readonly slug: string,
    readonly target: UploadTarget,
  ) {}

  prepare(file: TicketFile): Promise<PreparedUpload> {
    let ticket = this.#pending.get(file.id);
    if (!ticket) {
      const collection = this.target.kind === "asset" ? this.target.collectionToken : undefined;
      ticket = api.assets
        .prepareUpload(this.slug, { title: file.name, media_type: mediaTypeOf(file), size: file.size ?? 0, collection_token: collection })
        .then((r) => r.data);
      // A failed prepare is not remembered: Uppy's retry prepares again.
      ticket.catch(() => this.#pending.delete(file.id));
      this.#pending.set(file.id, ticket);
    }
    return ticket;
  }

  /** The ticket of a file whose upload already started (parts, completion). */
  get(fileId: string): Promise<PreparedUpload> {
    const ticket = this.#pending.get(fileId);
    if (!ticket) return Promise.reject(new Error("This upload was not prepared; retry it"));
    return ticket;
  }

  forget(fileId: string) {
    this.#pending.delete(fileId);
  }
}
