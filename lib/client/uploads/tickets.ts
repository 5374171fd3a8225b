import { api } from "../api";
import type { PreparedUpload } from "../types";
import type { StoredTicket, TicketStore } from "./ticket-store";

/** What the uploaded bytes become: a new asset (optionally on a board) or a new version of an asset. */
export type UploadTarget =
  | { kind: "asset"; collectionToken?: string }
  | { kind: "version"; assetToken: string; comment: () => string };

export type TicketFile = { id: string; name?: string; type?: string; size: number | null };

export const mediaTypeOf = (file: TicketFile) => file.type || "application/octet-stream";

/**
 * One upload_prepare per file, remembered by Uppy file id until the file is finished. Prepare
 * reserves the upload and presigns where its bytes go; the uploaders only send bytes there.
 * With a store, every ticket is also saved for the tab, so a reloaded page carries on with the
 * same reservation (lib/client/uploads/restore.ts decides whether a saved one is still good).
 */
export class UploadTickets {
  readonly #pending = new Map<string, Promise<PreparedUpload>>();
  readonly #sessions = new Map<string, string>();

  constructor(
    readonly slug: string,
    readonly target: UploadTarget,
    private readonly store: TicketStore | null = null,
  ) {}

  prepare(file: TicketFile): Promise<PreparedUpload> {
    let ticket = this.#pending.get(file.id);
    if (!ticket) {
      const saved = this.store?.load(file.id);
      if (saved && saved.size === file.size) {
        ticket = Promise.resolve(saved.ticket);
      } else {
        const collection = this.target.kind === "asset" ? this.target.collectionToken : undefined;
        const size = file.size ?? 0;
        ticket = api.assets
          .prepareUpload(this.slug, { title: file.name, media_type: mediaTypeOf(file), size, collection_token: collection })
          .then((r) => {
            this.store?.save(file.id, { size, ticket: r.data, gcsSession: null });
            return r.data;
          });
        // A failed prepare is not remembered: Uppy's retry prepares again.
        ticket.catch(() => this.#pending.delete(file.id));
      }
      this.#pending.set(file.id, ticket);
    }
    return ticket;
  }

  /** The ticket of a file whose upload already started (parts, completion), also after a reload. */
  get(fileId: string): Promise<PreparedUpload> {
    const ticket = this.#pending.get(fileId);
    if (ticket) return ticket;
    const saved = this.store?.load(fileId);
    if (saved) {
      const restored = Promise.resolve(saved.ticket);
      this.#pending.set(fileId, restored);
      return restored;
    }
    return Promise.reject(new Error("This upload was not prepared; retry it"));
  }

  /** The saved record of a file (ticket and gcs session), as a reloaded page finds it. */
  saved(fileId: string): StoredTicket | null {
    return this.store?.load(fileId) ?? null;
  }

  /** The resumable session a gcs upload opened, so a reload asks it how much arrived instead of starting over. */
  gcsSession(fileId: string): string | null {
    return this.#sessions.get(fileId) ?? this.store?.load(fileId)?.gcsSession ?? null;
  }

  rememberGcsSession(fileId: string, session: string) {
    this.#sessions.set(fileId, session);
    const saved = this.store?.load(fileId);
    if (saved) this.store?.save(fileId, { ...saved, gcsSession: session });
  }

  forget(fileId: string) {
    this.#pending.delete(fileId);
    this.#sessions.delete(fileId);
    this.store?.remove(fileId);
  }
}
