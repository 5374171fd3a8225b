import type { EaselClient } from "../client";
import type { Md5 } from "../md5/types";
import type { ByteReader } from "./byte-reader";

/** What a storage kind's transfer gets: the source read in order, the md5 to feed (null when the caller gave one), and where to report. */
export type TransferContext = {
  client: EaselClient;
  reader: ByteReader;
  size: number;
  mediaType: string;
  md5: Md5 | null;
  signal: AbortSignal;
  concurrency: number;
  /** Bytes stored so far (sent now, or found stored by a resumed upload). */
  progress: (storedBytes: number) => void;
};
