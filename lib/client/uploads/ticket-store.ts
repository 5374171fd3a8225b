import { z } from "zod";
import type { PreparedUpload } from "../types";

/**
 * What a page needs to carry an upload on after a reload: the upload_prepare answer (the
 * signed_storage_id and the presigned URLs the page already held) and, on gcs, the resumable
 * session it opened. Kept in sessionStorage: it survives a reload of the tab but not the tab, so
 * nothing outlives the page's own session longer than the upload itself would have.
 */
export type StoredTicket = { size: number; ticket: PreparedUpload; gcsSession: string | null };

/** The part of the Web Storage API the store uses (sessionStorage in the browser, a Map in tests). */
export type KeyValueStorage = Pick<Storage, "getItem" | "setItem" | "removeItem">;

// The pages' Content-Security-Policy allows no eval: zod must not probe for it (the probe is
// reported as a violation even though zod catches it), and needs no compiled fast path here.
z.config({ jitless: true });

// Whatever the browser hands back is read as untrusted: another script of the origin, an older
// build or a hand edit may have written it.
const httpUrl = z.url({ protocol: /^https?$/ });
const StoredTicketSchema = z.object({
  size: z.number().int().positive(),
  gcsSession: httpUrl.nullable(),
  ticket: z.object({
    storage_provider: z.enum(["s3", "gcs"]),
    signed_storage_id: z.string().min(1).max(2000),
    upload_url: httpUrl,
    multipart_upload_id: z.string().min(1).nullable(),
    part_size: z.number().int().positive().nullable(),
    part_urls: z.array(httpUrl).nullable(),
    list_parts_url: httpUrl.nullable().optional().transform((v) => v ?? null),
    expires_at: z.iso.datetime({ offset: true }),
  }),
});

const PREFIX = "easel-upload-ticket";

export class TicketStore {
  constructor(
    private readonly namespace: string,
    private readonly storage: KeyValueStorage | null,
    private readonly warn: (message: string) => void = (m) => console.warn(m),
  ) {}

  /** The browser's sessionStorage, or null where the page may not use it (then uploads still work, but do not survive a reload). */
  static browserStorage(warn: (message: string) => void): KeyValueStorage | null {
    try {
      return typeof window === "undefined" ? null : window.sessionStorage;
    } catch (err) {
      warn(`Uploads will not survive a reload: sessionStorage is unavailable (${(err as Error).message})`);
      return null;
    }
  }

  #key(fileId: string) {
    return `${PREFIX}:${this.namespace}:${fileId}`;
  }

  load(fileId: string): StoredTicket | null {
    if (!this.storage) return null;
    let raw: string | null;
    try {
      raw = this.storage.getItem(this.#key(fileId));
    } catch (err) {
      this.warn(`Could not read a saved upload: ${(err as Error).message}`);
      return null;
    }
    if (raw === null) return null;
    const parsed = StoredTicketSchema.safeParse(parseJsonOrNull(raw));
    if (!parsed.success) {
      // What the file had sent is lost to this tab; the upload starts over (the caller says so).
      this.warn(`Dropped an unreadable saved upload for ${fileId}`);
      this.remove(fileId);
      return null;
    }
    return parsed.data;
  }

  save(fileId: string, record: StoredTicket) {
    if (!this.storage) return;
    try {
      this.storage.setItem(this.#key(fileId), JSON.stringify(record));
    } catch (err) {
      // Quota or privacy settings: the upload goes on, it just cannot resume after a reload.
      this.warn(`Could not save the upload of ${fileId} for a reload: ${(err as Error).message}`);
    }
  }

  remove(fileId: string) {
    if (!this.storage) return;
    try {
      this.storage.removeItem(this.#key(fileId));
    } catch (err) {
      this.warn(`Could not remove the saved upload of ${fileId}: ${(err as Error).message}`);
    }
  }
}

/** The JSON value of `text`, or null when it is not JSON: the schema check then refuses it, with a warning. */
function parseJsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    return null;
  }
}
