import { XMLParser } from "fast-xml-parser";
import { PART_SIZE, partCount } from "../../storage/limits";
import type { StoredTicket } from "./ticket-store";

/*
 * What a reloaded page sends, and what it does not: the decisions behind resuming an upload,
 * kept apart from Uppy and the network so they can be checked against the real store.
 */

/** A restored upload's reservation must outlive the rest of the upload by this much; closer to its expiry it starts over. */
export const TICKET_MARGIN_MS = 10 * 60 * 1000;

export type StoredPart = { partNumber: number; etag: string; size: number };

const parser = new XMLParser({ ignoreAttributes: true, parseTagValue: false, isArray: (name) => name === "Part" });

/** The parts a ListParts answer names (ETags without their quotes). Entries without a whole number, ETag or size are left out (sent again). */
export function listedParts(xml: string): StoredPart[] {
  const doc = parser.parse(xml) as { ListPartsResult?: { Part?: unknown[] } };
  const parts = doc.ListPartsResult?.Part ?? [];
  return parts.flatMap((p) => {
    const part = p as Record<string, unknown>;
    const partNumber = Number(part.PartNumber);
    const size = Number(part.Size);
    const etag = typeof part.ETag === "string" ? part.ETag.replace(/^"+|"+$/g, "") : "";
    return Number.isInteger(partNumber) && partNumber > 0 && Number.isInteger(size) && size >= 0 && etag ? [{ partNumber, etag, size }] : [];
  });
}

/** Bytes of part `n` (from 1) of an upload of `size` bytes in Easel's part size. */
export function expectedPartSize(size: number, n: number): number {
  return Math.max(0, Math.min(PART_SIZE, size - (n - 1) * PART_SIZE));
}

/** The listed parts storage holds whole: numbered within the upload and of the size that slice of the file has. */
export function partsToKeep(size: number, listed: StoredPart[]): StoredPart[] {
  const total = partCount(size);
  const kept = new Map<number, StoredPart>();
  for (const part of listed) {
    if (part.partNumber <= total && part.size === expectedPartSize(size, part.partNumber)) kept.set(part.partNumber, part);
  }
  return [...kept.values()].sort((a, b) => a.partNumber - b.partNumber);
}

/** Part numbers still to send after a reload, given the parts kept. */
export function partsToSend(size: number, kept: StoredPart[]): number[] {
  const have = new Set(kept.map((p) => p.partNumber));
  return Array.from({ length: partCount(size) }, (_, i) => i + 1).filter((n) => !have.has(n));
}

// Named entities: @uppy/aws-s3's own XML reader decodes those and no numeric ones.
const NAMED: Record<string, string> = { "<": "&lt;", ">": "&gt;", "&": "&amp;", "'": "&apos;", '"': "&quot;" };
const escapeXml = (s: string) => s.replace(/[<>&'"]/g, (c) => NAMED[c]);

/** A ListPartsResult naming only `kept`: what @uppy/aws-s3 reads to skip those parts. */
export function listPartsAnswer(kept: StoredPart[]): string {
  const parts = kept.map((p) => `<Part><PartNumber>${p.partNumber}</PartNumber><ETag>${escapeXml(p.etag)}</ETag><Size>${p.size}</Size></Part>`).join("");
  return `<ListPartsResult>${parts}</ListPartsResult>`;
}

/** `Range: bytes=0-b` of a 308 → bytes stored so far (none without the header). */
export function committedBytes(range: string | null): number {
  const m = range ? /^bytes=0-(\d+)$/.exec(range.trim()) : null;
  return m ? Number(m[1]) + 1 : 0;
}

export type SessionStatus = { state: "complete" } | { state: "partial"; offset: number } | { state: "gone" };

/** A resumable session's answer to an empty `PUT` with `Content-Range: bytes * /total`. */
export function sessionStatusOf(status: number, range: string | null): SessionStatus {
  if (status === 200 || status === 201) return { state: "complete" };
  if (status === 308) return { state: "partial", offset: committedBytes(range) };
  if (status === 404 || status === 410) return { state: "gone" };
  throw new Error(`Storage answered HTTP ${status} when asked how much of the upload arrived`);
}

export function ticketUsable(ticket: { expires_at: string }, now: Date): boolean {
  const expires = Date.parse(ticket.expires_at);
  return Number.isFinite(expires) && expires - now.getTime() > TICKET_MARGIN_MS;
}

/** A file Golden Retriever brought back, as far as deciding its fate needs. */
export type RestoredFile = { size: number | null; hasData: boolean; uploadComplete: boolean; s3UploadId: string | null };

export type RestoreDecision =
  | { action: "resume" }
  /** Send the file again from its first byte under a new reservation. */
  | { action: "restart"; reason: string }
  /** Nothing left to send it with (its bytes went up, but the reservation that names them is gone). */
  | { action: "drop"; reason: string };

/** What to do with a restored file, given the reservation saved for it (if any). */
export function restoreDecision(file: RestoredFile, saved: StoredTicket | null, now: Date): RestoreDecision {
  const problem = !saved
    ? "its upload reservation was not kept (it lasts only as long as the tab)"
    : !ticketUsable(saved.ticket, now)
      ? "its upload reservation has expired"
      : saved.size !== file.size
        ? "the file is not the one that was reserved"
        : file.s3UploadId !== null && saved.ticket.multipart_upload_id !== file.s3UploadId
          ? "its multipart upload does not match the reservation"
          : null;
  if (!problem) return { action: "resume" };
  if (file.uploadComplete || !file.hasData) return { action: "drop", reason: problem };
  return { action: "restart", reason: problem };
}
