/** An md5 fed in order, chunk by chunk. */
export type Md5 = { update: (chunk: Uint8Array) => void; hex: () => string };
