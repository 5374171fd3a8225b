import fs from "node:fs";
import path from "node:path";

export type Release = { commit: string; name: string; migrations: string; note: string };

/** The recorded earlier releases, oldest first (releases.json). */
export function recordedReleases(root: string): Release[] {
  const file = path.join(root, "lib/db/check-migrations/releases.json");
  return (JSON.parse(fs.readFileSync(file, "utf8")) as { releases: Release[] }).releases;
}
