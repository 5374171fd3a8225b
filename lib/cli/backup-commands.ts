import fs from "node:fs";
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

function parse(argv: string[], options: Record<string, { type: "string" | "boolean" }>, usage: string) {
  try {
    const parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    if (parsed.positionals.length !== 1) throw new Error("expected 1 argument");
    return parsed as { values: Record<string, string | boolean | undefined>; positionals: string[] };
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
      io.out(`signed with the backup key ${result.keyId} in ${path.join(env().dataDir, "backup.key")}: keep a copy of that file apart from the archives, a restore needs it`);
      io.out(`archived in ${seconds.toFixed(1)} s (${(result.bytes / 1024 / 1024 / seconds).toFixed(0)} MiB/s written)`);
      io.out(`backup: ${file} ${result.bytes} bytes, ${result.assets} assets, ${result.versions} versions, ${result.objects} objects`);
      return 0;
    },
  },
  restore: {
    usage: "restore <file> --data-dir <dir> [--key-file <backup.key> | --without-key]",
    async run(argv, io) {
      const parsed = parse(argv, { "data-dir": { type: "string" }, "key-file": { type: "string" }, "without-key": { type: "boolean" } }, this.usage);
      if (!parsed) return 2;
      const { "data-dir": dataDir, "key-file": keyFile, "without-key": withoutKey } = parsed.values as { "data-dir"?: string; "key-file"?: string; "without-key"?: boolean };
      const dir = dataDir && typed(dataDir);
      if (!dir) {
        printErr(`--data-dir is required\nusage: npm run easel -- ${this.usage}`);
        return 2;
      }
      if (keyFile && withoutKey) {
        printErr(`--key-file and --without-key exclude each other\nusage: npm run easel -- ${this.usage}`);
        return 2;
      }
      const [{ restoreArchive }, { progressLine }, { readBackupKey, BACKUP_KEY_FILE }] = await Promise.all([import("../backup/restore-archive"), import("../backup/progress"), import("../backup/signing-key")]);
      // Without --key-file: the key of this machine's data dir, when it has one (a restore beside the dir that made the archive).
      const ownKey = path.join(env().dataDir, BACKUP_KEY_FILE);
      const keyPath = keyFile ? typed(keyFile) : !withoutKey && fs.existsSync(ownKey) ? ownKey : null;
      const key = keyPath ? await readBackupKey(keyPath) : null;
      if (withoutKey) printErr("warning: restoring without the backup key: the archive's signature is not checked, only its digest and its objects against its database");
      const progress = progressLine(process.stderr, "restore");
      const result = await restoreArchive(typed(parsed.positionals[0]), dir, (bytes) => progress.update(bytes), { key, withoutKey }).finally(() => progress.end());
      for (const key of result.database.missing) printErr(`warning: the restored database names ${key}, which the archive does not hold (kept in a real bucket, or missing at backup time)`);
      io.out(result.signed ? `signature checked with the backup key ${key!.id}; ${result.database.checked} originals match the database's md5` : `not signed or not checked; ${result.database.checked} originals match the database's md5`);
      io.out(`start Easel on it with EASEL_DATA_DIR=${dir} npm start`);
      io.out(`restore: ${dir} ${result.manifest.assets} assets, ${result.manifest.versions} versions, ${result.trailer.objects} objects (backup of ${result.manifest.created_at})`);
      return 0;
    },
  },
};
