import { parseArgs } from "node:util";
import type { Db } from "../db";
import { DomainError } from "../errors";
import { verifyStorage, type VerifySummary } from "../storage/verify/verify-storage";
import { UsageError, type Output } from "./usage";

const USAGE = "storage verify [--workspace <slug>]";

/** A one-line progress display on a terminal's stderr, redrawn at most every 200 ms and cleared before any other line. */
function terminalProgress(stream: NodeJS.WriteStream) {
  let shown = 0;
  let drawn = false;
  const clear = () => {
    if (drawn) stream.write("\r\x1b[K");
    drawn = false;
  };
  return {
    clear,
    update(t: VerifySummary) {
      if (Date.now() - shown < 200) return;
      shown = Date.now();
      stream.write(`\r\x1b[Kverify: ${t.checked} objects, ${(t.bytes / 1024 ** 2).toFixed(1)} MiB read, ${t.missing} missing, ${t.corrupt} corrupt`);
      drawn = true;
    },
  };
}

/** `npm run easel -- storage verify [--workspace <slug>]` (contract §10; docs/storage.md, "Verifying stored files"). */
export const storageVerify = {
  usage: USAGE,
  async run(db: Db, argv: string[], io: Output): Promise<void> {
    let workspace: string | undefined;
    try {
      const parsed = parseArgs({ args: argv, options: { workspace: { type: "string" } }, allowPositionals: false, strict: true });
      workspace = parsed.values.workspace;
    } catch (err) {
      throw new UsageError(`${(err as Error).message}\nusage: ${USAGE}`);
    }
    const progress = process.stderr.isTTY ? terminalProgress(process.stderr) : null;
    const summary = await verifyStorage(db, {
      workspace,
      report: (line) => {
        progress?.clear();
        io.out(line);
      },
      progress: progress ? (t) => progress.update(t) : undefined,
    }).finally(() => progress?.clear());
    io.out(`verify: ${summary.checked} objects checked, ${summary.missing} missing, ${summary.corrupt} corrupt`);
    // The exit status: 1 when anything is missing or corrupt (the lines above name it).
    if (summary.missing + summary.corrupt > 0) throw new DomainError("storage_object_not_found", `storage verify: ${summary.missing} missing, ${summary.corrupt} corrupt`);
  },
};
