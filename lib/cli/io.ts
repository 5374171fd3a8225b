/**
 * What the CLI says, apart from log lines (which go to stderr as JSON, see log-to-stderr.ts).
 * Plain writes: a command's output is its contract (contract §10, e.g. the `backup: …` line), and a
 * refusal or usage message is for the person at the terminal.
 */

/** A line of the command's output, on stdout. */
export function printOut(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** A message for the person running the command (usage, refusal, warning), on stderr. */
export function printErr(text: string): void {
  process.stderr.write(`${text}\n`);
}
