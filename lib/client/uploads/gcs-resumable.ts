import { BasePlugin, EventManager, type PluginOpts, type Uppy } from "@uppy/core";
import { filterFilesToEmitUploadStarted, filterFilesToUpload, type Body, type Meta, type UppyFile } from "@uppy/core/utils";
import { committedBytes, sessionStatusOf, type SessionStatus } from "./resume";
import { signedConditionHeaders } from "./signed-conditions";
import { mediaTypeOf, type UploadTickets } from "./tickets";

/** Bytes per PUT. Every chunk but the last must be a multiple of 256 KiB (the resumable protocol). */
export const GCS_CHUNK_BYTES = 8 * 1024 * 1024;
const ATTEMPTS = 5;

export type StorageAnswer = { status: number; header: (name: string) => string | null };
export type SendOptions = { headers?: Record<string, string>; body?: Blob | null; signal: AbortSignal; onProgress?: (sent: number) => void };
/** One request to storage: XMLHttpRequest in the browser (it reports upload progress), the in-process store in tests. */
export type Transport = (method: string, url: string, opts: SendOptions) => Promise<StorageAnswer>;

const sendWithXhr: Transport = (method, url, opts) => {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, url);
    for (const [k, v] of Object.entries(opts.headers ?? {})) xhr.setRequestHeader(k, v);
    if (opts.onProgress) xhr.upload.onprogress = (e) => opts.onProgress?.(e.loaded);
    const abort = () => xhr.abort();
    opts.signal.addEventListener("abort", abort, { once: true });
    xhr.onload = () => {
      opts.signal.removeEventListener("abort", abort);
      resolve({ status: xhr.status, header: (n) => xhr.getResponseHeader(n) });
    };
    xhr.onerror = () => reject(new Error("Network error while uploading"));
    xhr.onabort = () => reject(new DOMException("Upload cancelled", "AbortError"));
    xhr.send(opts.body ?? null);
  });
};

/** Asks a resumable session how much of `total` bytes it holds (an empty PUT with `bytes * /total`). */
export async function querySession(session: string, total: number, signal: AbortSignal, transport: Transport = sendWithXhr): Promise<SessionStatus> {
  const res = await transport("PUT", session, { headers: { "Content-Range": `bytes */${total}` }, signal });
  return sessionStatusOf(res.status, res.header("range"));
}

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(t), reject(new DOMException("Upload cancelled", "AbortError"))), { once: true });
  });

/**
 * Sends a file to a resumable session: chunked PUTs with Content-Range; a 308 says how much is
 * stored. After a failed chunk it asks the session (`bytes * /total`) where to go on, so a
 * dropped connection costs one chunk, not the file.
 */
export async function sendResumable(
  session: string,
  data: Blob,
  signal: AbortSignal,
  onProgress: (bytes: number) => void,
  opts: { from?: number; transport?: Transport } = {},
): Promise<void> {
  const send = opts.transport ?? sendWithXhr;
  const total = data.size;
  let offset = opts.from ?? 0;
  let failures = 0;
  while (true) {
    const end = Math.min(offset + GCS_CHUNK_BYTES, total);
    try {
      const res = await send("PUT", session, {
        headers: { "Content-Range": total === 0 ? "bytes */0" : `bytes ${offset}-${end - 1}/${total}` },
        body: data.slice(offset, end),
        signal,
        onProgress: (sent) => onProgress(offset + sent),
      });
      if (res.status === 200 || res.status === 201) return onProgress(total);
      if (res.status === 308) {
        offset = committedBytes(res.header("range"));
        failures = 0;
        onProgress(offset);
        continue;
      }
      if (res.status < 500 && res.status !== 429) throw new Error(`Storage refused the upload (HTTP ${res.status})`);
      throw new Error(`Storage answered HTTP ${res.status}`);
    } catch (err) {
      if (signal.aborted || (err as Error).message.startsWith("Storage refused")) throw err;
      if (++failures >= ATTEMPTS) throw err;
      await pause(500 * 2 ** failures, signal);
      let status: SessionStatus | null = null;
      try {
        status = await querySession(session, total, signal, send);
      } catch (queryErr) {
        // Still unreachable: the next round resends from the last known offset (bytes stored twice are ignored).
        if (signal.aborted) throw queryErr;
      }
      if (status?.state === "complete") return onProgress(total);
      if (status?.state === "partial") offset = status.offset;
      if (status?.state === "gone") throw new Error("The upload session expired in storage; remove the file and add it again");
    }
  }
}

export type GcsUploaderOptions = PluginOpts & { tickets: UploadTickets; limit?: number };

/**
 * Easel's Uppy uploader for gcs workspaces (interface "Kind A"): upload_prepare gives a signed URL;
 * POST it with `x-goog-resumable: start` to open a session (201 + Location), then send the bytes
 * in resumable chunks. upload_complete runs afterwards (the postprocessor in create-uploader.ts).
 */
export default class EaselGcsUploader<M extends Meta, B extends Body> extends BasePlugin<GcsUploaderOptions, M, B> {
  constructor(uppy: Uppy<M, B>, opts: GcsUploaderOptions) {
    super(uppy, opts);
    this.id = opts.id ?? "EaselGcsUploader";
    this.type = "uploader";
  }

  override install() {
    this.uppy.addUploader(this.#upload);
  }

  override uninstall() {
    this.uppy.removeUploader(this.#upload);
  }

  #upload = async (fileIDs: string[]) => {
    const files = filterFilesToUpload(this.uppy.getFilesByIds(fileIDs)) as UppyFile<M, B>[];
    this.uppy.emit("upload-start", filterFilesToEmitUploadStarted(files));
    const queue = [...files];
    const worker = async () => {
      for (let file = queue.shift(); file; file = queue.shift()) await this.#uploadFile(file);
    };
    await Promise.all(Array.from({ length: Math.min(this.opts.limit ?? 3, queue.length) }, worker));
  };

  /**
   * The session to send `data` to and the offset to go on from: after a reload (or a retry) the
   * session this file opened before is asked how much it holds; a session storage no longer
   * knows is replaced by a new reservation, from byte 0.
   */
  async #sessionFor(file: UppyFile<M, B>, data: Blob, signal: AbortSignal): Promise<{ session: string; from: number; done: boolean }> {
    const tickets = this.opts.tickets;
    const described = { id: file.id, name: file.name, type: file.type, size: data.size };
    const earlier = tickets.gcsSession(file.id);
    if (earlier) {
      const status = await querySession(earlier, data.size, signal);
      if (status.state === "complete") return { session: earlier, from: data.size, done: true };
      if (status.state === "partial") return { session: earlier, from: status.offset, done: false };
      this.uppy.info(`${file.name ?? "A file"}: its upload session expired, so it starts over.`, "warning", 8000);
      tickets.forget(file.id);
    }
    const ticket = await tickets.prepare(described);
    const opened = await sendWithXhr("POST", ticket.upload_url, {
      headers: { "x-goog-resumable": "start", "Content-Type": mediaTypeOf(described), ...signedConditionHeaders(ticket.upload_url) },
      signal,
    });
    const session = opened.header("location");
    if (opened.status !== 201 || !session) throw new Error(`Storage did not open an upload session (HTTP ${opened.status})`);
    tickets.rememberGcsSession(file.id, session);
    return { session, from: 0, done: false };
  }

  async #uploadFile(file: UppyFile<M, B>) {
    const events = new EventManager(this.uppy);
    const controller = new AbortController();
    events.onFileRemove(file.id, () => controller.abort());
    events.onCancelAll(file.id, () => controller.abort());
    let session: string | null = null;
    try {
      if (file.isRemote || !file.data) throw new Error("Only files from this device can be uploaded");
      const data = file.data;
      const started = Date.now();
      const progress = (bytesUploaded: number) => {
        const current = this.uppy.getFile(file.id);
        if (current) this.uppy.emit("upload-progress", current, { uploadStarted: current.progress.uploadStarted ?? started, bytesUploaded, bytesTotal: data.size });
      };
      const resumed = await this.#sessionFor(file, data, controller.signal);
      session = resumed.session;
      if (!resumed.done) await sendResumable(session, data, controller.signal, progress, { from: resumed.from });
      progress(data.size);
      const current = this.uppy.getFile(file.id);
      if (current) this.uppy.emit("upload-success", current, { status: 200, body: {} as B, uploadURL: session });
    } catch (err) {
      if (controller.signal.aborted) {
        // Cancelled by the user: close the session so the store drops what arrived.
        if (session) {
          const closing = session;
          void sendWithXhr("DELETE", closing, { signal: new AbortController().signal }).catch((e: Error) => this.uppy.log(`Could not close the cancelled upload session: ${e.message}`, "warning"));
        }
        return;
      }
      const current = this.uppy.getFile(file.id);
      if (current) this.uppy.emit("upload-error", current, { name: "UploadError", message: (err as Error).message });
    } finally {
      events.remove();
    }
  }
}
