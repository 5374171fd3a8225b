/** A command was called wrongly: main prints the message (with the usage line) and exits 2. */
export class UsageError extends Error {}

/** Where a command writes its output lines (stdout in the CLI, an array in tests). */
export type Output = { out: (line: string) => void };
