/**
 * A `.catch` for reading a file ffmpeg may not have written yet: `fallback` when it does not
 * exist, any other failure (permissions, a full disk, I/O) thrown on to the step that read it.
 */
export function whenMissing<T>(fallback: T): (err: unknown) => T {
  return (err) => {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return fallback;
    throw err;
  };
}
