import crypto from "node:crypto";

/**
 * A running SHA-256 over an archive's entries in order: each entry's name, type and size, then its
 * bytes. The backup writes it into the trailer (signed); a restore computes it again from what it
 * reads, so any entry added, dropped, reordered, renamed or changed makes the two differ.
 */
export class ArchiveDigest {
  private readonly hash = crypto.createHash("sha256");

  entry(name: string, type: string, size: number): void {
    // One JSON line per header: a name cannot be confused with the bytes that follow it.
    this.hash.update(`${JSON.stringify([name, type, size])}\n`);
  }

  update(chunk: Buffer): void {
    this.hash.update(chunk);
  }

  hex(): string {
    return this.hash.copy().digest("hex");
  }
}
