import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { readJson } from "../objectstore/disk/atomic";
import { layout } from "../objectstore/disk/layout";
import type { ObjectRecord } from "../objectstore/disk/objects";
import { EMBEDDED_BUCKET } from "../objectstore/identity";
import { RestoreError } from "./check-entry";

export type DatabaseCheck = {
  /** Originals (asset heads and versions) whose restored bytes match the database's size and md5. */
  checked: number;
  /** Originals the database names that the archive does not hold (a data dir whose files are in a real bucket, or damaged at backup time). */
  missing: string[];
};

const PAGE = 5000;
const SHOWN = 5;

/**
 * Checks a restored data dir (not yet in place) the way its server will trust it: every original
 * the restored database names (each asset's head and each stored version) must be, in the
 * restored store, an object of the size and md5 the database recorded. The restore has already
 * checked each object's bytes against its record's md5 while writing them, so a match here means
 * the bytes are the ones the database was written for; an archive whose object bytes and record
 * were both replaced is refused here even when it carries no signature.
 */
export async function checkRestoredDatabase(dataDir: string): Promise<DatabaseCheck> {
  let pg: PGlite;
  try {
    pg = await PGlite.create({ dataDir: path.join(dataDir, "pg") });
  } catch (err) {
    throw new RestoreError(`the archive's database does not open with this version of Easel: ${(err as Error).message}`);
  }
  const lay = layout(path.join(dataDir, "objects"));
  const result: DatabaseCheck = { checked: 0, missing: [] };
  const wrong: string[] = [];
  try {
    for (const table of ["assets", "asset_versions"] as const) {
      for (let after = 0; ; ) {
        const { rows } = await pg.query<{ id: number; storage_key: string; size: string; md5: string }>(`SELECT id, storage_key, size::text AS size, md5 FROM ${table} WHERE id > $1 ORDER BY id LIMIT ${PAGE}`, [after]);
        for (const row of rows) {
          const record = await readJson<ObjectRecord>(lay.objectRecord(EMBEDDED_BUCKET, row.storage_key));
          if (!record) result.missing.push(row.storage_key);
          else if (record.size !== Number(row.size) || record.md5 !== row.md5) wrong.push(`${row.storage_key} (the database says ${row.size} bytes, md5 ${row.md5}; the archive holds ${record.size} bytes, md5 ${record.md5})`);
          else result.checked++;
        }
        if (rows.length < PAGE) break;
        after = rows.at(-1)!.id;
      }
    }
  } catch (err) {
    if (err instanceof RestoreError) throw err;
    throw new RestoreError(`the archive's database could not be read: ${(err as Error).message}`);
  } finally {
    await pg.close();
  }
  if (wrong.length) {
    const more = wrong.length > SHOWN ? ` and ${wrong.length - SHOWN} more` : "";
    throw new RestoreError(`the archive's objects are not the ones its database was written for: ${wrong.slice(0, SHOWN).join("; ")}${more} (a tampered or damaged archive)`);
  }
  return result;
}
