import { Worker } from "node:worker_threads";
import { abortError } from "../errors";

// Plain JavaScript, evaluated in the worker: the worker needs no TypeScript loader.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const crypto = require("node:crypto");
const fs = require("node:fs");
const hash = crypto.createHash("md5");
fs.createReadStream(workerData.file, { highWaterMark: 8 * 1024 * 1024 })
  .on("data", (chunk) => hash.update(chunk))
  .on("end", () => parentPort.postMessage({ md5: hash.digest("hex") }))
  .on("error", (err) => parentPort.postMessage({ error: err.message }));
`;

/**
 * The md5 of a file, computed on a worker thread (its own read of the file): a large upload's
 * hash runs on another core beside the transfer instead of between its parts on this thread.
 */
export function md5InWorker(file: string, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file } });
    const onAbort = () => {
      void worker.terminate();
      reject(abortError(signal!));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const settle = () => signal?.removeEventListener("abort", onAbort);
    worker.once("message", (message: { md5?: string; error?: string }) => {
      settle();
      void worker.terminate();
      if (message.md5) resolve(message.md5);
      else reject(new Error(`reading ${file}: ${message.error}`));
    });
    worker.once("error", (err) => {
      settle();
      reject(err);
    });
  });
}
