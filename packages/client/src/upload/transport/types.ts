/** One answer from a storage URL: its status and headers, and its (small) body on demand. */
export type StorageAnswer = { status: number; header: (name: string) => string | null; text: () => Promise<string> };
export type StorageSendOptions = { body?: Uint8Array; headers?: Record<string, string>; signal?: AbortSignal };
/** One request to a presigned storage URL (no Authorization: the URL carries its signature). */
export type StorageSend = (method: string, url: string, opts: StorageSendOptions) => Promise<StorageAnswer>;
