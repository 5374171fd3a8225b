/**
 * In-process mutual exclusion by name. One process owns the embedded store's files (as it owns the
 * embedded database), so commits that read-then-replace a record (overwrite an object, finish a
 * multipart upload) only need to exclude each other inside this process.
 */
const tails = ((globalThis as { __easelStoreLocks?: Map<string, Promise<void>> }).__easelStoreLocks ??= new Map());

export async function withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const previous = tails.get(name) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => (release = resolve));
  const tail = previous.then(() => mine);
  tails.set(name, tail);
  await previous;
  try {
    return await fn();
  } finally {
    release();
    if (tails.get(name) === tail) tails.delete(name);
  }
}
