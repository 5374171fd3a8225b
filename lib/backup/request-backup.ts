import type net from "node:net";
import { Readable, pipeline } from "node:stream";
import type { BackupSummary } from "./format";
import { FRAME, FrameDecoder, type Frame } from "./frames";
import type { PackProgress } from "./pack-archive";

/** The owner's answer to a backup request: the archive's bytes, and its summary once they ended. */
export type RemoteBackup = { stream: Readable; summary: () => BackupSummary | null };

/**
 * Reads the owner's frames (frames.ts) from the control connection: archive bytes become the
 * returned stream (pulled: the owner sends only as fast as they are written here), progress goes
 * to `onProgress`, the summary ends the stream, an error or a cut connection fails it.
 */
export function receiveBackup(socket: net.Socket, onProgress?: (p: PackProgress) => void): RemoteBackup {
  const decoder = new FrameDecoder();
  // Unlike pipe(), pipeline() fails the decoder when the connection errors or closes early.
  pipeline(socket, decoder, () => undefined);
  let summary: BackupSummary | null = null;
  async function* archiveBytes(): AsyncGenerator<Buffer> {
    try {
      for await (const frame of decoder as AsyncIterable<Frame>) {
        if (frame.type === FRAME.data) yield frame.payload;
        else if (frame.type === FRAME.progress) onProgress?.(JSON.parse(frame.payload.toString("utf8")) as PackProgress);
        else if (frame.type === FRAME.summary) {
          summary = JSON.parse(frame.payload.toString("utf8")) as BackupSummary;
          return;
        } else if (frame.type === FRAME.error) throw new Error(`the server could not make the backup: ${(JSON.parse(frame.payload.toString("utf8")) as { message: string }).message}`);
      }
    } catch (err) {
      if ((err as Error).message.startsWith("the server could not")) throw err;
      throw new Error(`the connection to the server was lost during the backup (${(err as Error).message})`);
    } finally {
      socket.destroy();
    }
    throw new Error("the server closed the connection before the backup was complete (did it stop?)");
  }
  return { stream: Readable.from(archiveBytes(), { objectMode: false }), summary: () => summary };
}
