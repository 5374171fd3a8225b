import path from "node:path";
import { parseArgs } from "node:util";
import { env } from "../env";
import type { Output } from "./commands";
import { printErr } from "./io";

/**
 * Commands that must not open the database first: `restore` never touches one (it lays out a new
 * data dir), `backup` asks the data dir's owner or becomes it. Each returns its exit code (2 for
 * a usage error) and loads only what it needs, so neither pays for the other commands' imports.
 */
export type StandaloneCommand = { usage: string; run: (argv: string[], io: Output) => Promise<number> };

function parse(argv: string[], options: Record<string, { type: "string" }>, usage: string) {
  try {
    const parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    if (parsed.positionals.length !== 1) throw new Error("expected 1 argument");
    return parsed as { values: Record<string, string | undefined>; positionals: string[] };
  } catch (err) {
    printErr(`${(err as Error).message}\nusage: npm run easel -- ${usage}`);
    return null;
  }
}

/**
 * `npm run` starts scripts in the project's root; a path typed on the command line means the
 * directory npm was run from (INIT_CWD), as it would for any other program.
 */
const typed = (p: string) => path.resolve(process.env.INIT_CWD ?? process.cwd(), p);

export const STANDALONE_COMMANDS: Record<string, StandaloneCommand> = {
  backup: {
    usage: "backup <file>   (.tar, .tar.gz/.tgz, or .tar.zst with zstd installed)",
    async run(argv, io) {
      const parsed = parse(argv, {}, this.usage);
      if (!parsed) return 2;
      if (env().DATABASE_URL) {
        printErr(
          "backup: this deployment keeps its data in PostgreSQL (DATABASE_URL) and its files in a bucket, not in an embedded data dir.\n" +
            "Back up the database with pg_dump (e.g. pg_dump --format=custom \"$DATABASE_URL\" > easel.dump) and the files with the bucket's own replication or versioning; see docs/operations.md.",
        );
        return 2;
      }
      const [{ checkArchiveTarget }, { backupDataDir }, { progressLine }] = await Promise.all([import("../backup/archive-output"), import("../backup/backup-data-dir"), import("../backup/progress")]);
      const file = parsed.positionals[0];
      await checkArchiveTarget(typed(file));
      const progress = progressLine(process.stderr, "backup");
      const started = performance.now();
      const result = await backupDataDir({ dataDir: env().dataDir, file: typed(file), onProgress: (p) => progress.update(p.bytes, p.objects) }).finally(() => progress.end());
      const seconds = (performance.now() - started) / 1000;
      for (const key of result.damaged) printErr(`warning: not archived, its stored file is missing or truncated in the data dir: ${key}`);
      io.out(`database snapshot taken by ${result.via === "server" ? "the running server" : "this process (no server running)"}; the database was locked for ${result.dbLockedMs} ms`);
      io.out(`archived in ${seconds.toFixed(1)} s (${(result.bytes / 1024 / 1024 / seconds).toFixed(0)} MiB/s written)`);
      io.out(`backup: ${file} ${result.bytes} bytes, ${result.assets} assets, ${result.versions} versions, ${result.objects} objects`);
      return 0;
    },
  },
  restore: {
    usage: "restore <file> --data-dir <dir>",
    async run(argv, io) {
      const parsed = parse(argv, { "data-dir": { type: "string" } }, this.usage);
      if (!parsed) return 2;
      const dir = parsed.values["data-dir"] && typed(parsed.values["data-dir"]);
      if (!dir) {
        printErr(`--data-dir is required\nusage: npm run easel -- ${this.usage}`);
        return 2;
      }
      const [{ restoreArchive }, { progressLine }] = await Promise.all([import("../backup/restore-archive"), import("../backup/progress")]);
      const progress = progressLine(process.stderr, "restore");
      const result = await restoreArchive(typed(parsed.positionals[0]), dir, (bytes) => progress.update(bytes)).finally(() => progress.end());
      io.out(`start Easel on it with EASEL_DATA_DIR=${dir} npm start`);
      io.out(`restore: ${dir} ${result.manifest.assets} assets, ${result.manifest.versions} versions, ${result.trailer.objects} objects (backup of ${result.manifest.created_at})`);
      return 0;
    },
  },
};
