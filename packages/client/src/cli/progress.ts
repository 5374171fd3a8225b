import cliProgress from "cli-progress";

export type Progress = {
  start: (name: string, total: number) => (sent: number) => void;
  finish: (name: string) => void;
  /** Prints a line above the bars (or plainly when there are none). */
  log: (line: string, toStdout: boolean) => void;
  stop: () => void;
};

const MiB = 1024 * 1024;

/**
 * Bars on stderr, one per file in flight, only when stderr is a terminal (cli-progress); with
 * no terminal nothing is drawn and each line goes straight to its stream.
 */
export function createProgress(stderr: NodeJS.WriteStream, stdout: NodeJS.WriteStream): Progress {
  if (!stderr.isTTY) {
    return { start: () => () => undefined, finish: () => undefined, log: (line, toStdout) => void (toStdout ? stdout : stderr).write(`${line}\n`), stop: () => undefined };
  }
  const bars = new cliProgress.MultiBar(
    {
      stream: stderr,
      clearOnComplete: true,
      hideCursor: true,
      format: " {bar} {percentage}% | {sent}/{size} MiB | {name}",
      autopadding: true,
    },
    cliProgress.Presets.shades_classic,
  );
  const active = new Map<string, cliProgress.SingleBar>();
  const mib = (n: number) => (n / MiB).toFixed(1);
  return {
    start(name, total) {
      const bar = bars.create(Math.max(1, total), 0, { name, sent: mib(0), size: mib(total) });
      active.set(name, bar);
      return (sent) => bar.update(sent, { sent: mib(sent) });
    },
    finish(name) {
      const bar = active.get(name);
      if (bar) bars.remove(bar);
      active.delete(name);
    },
    log(line, toStdout) {
      // stdout on the same terminal: print above the bars so they are not torn; piped stdout gets the line itself.
      if (toStdout && !stdout.isTTY) stdout.write(`${line}\n`);
      else bars.log(`${line}\n`);
    },
    stop: () => bars.stop(),
  };
}
