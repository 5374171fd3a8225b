import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * docs/ui.md's pages table shows each page with the screenshots e2e/ui/accessibility.spec.ts takes
 * (EASEL_E2E_DOCS_SHOTS=1). A page added to the app or the table without a picture, or a picture
 * the docs name that is not in docs/ui/, fails here, so the docs cannot go stale without notice.
 */
const root = path.resolve(import.meta.dirname, "../..");
const doc = fs.readFileSync(path.join(root, "docs/ui.md"), "utf8");
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Pages that only redirect: they have nothing to show. */
const REDIRECT_ONLY = new Set(["/", "/w/:*"]);

type Row = { paths: string[]; images: string[] };

/** The rows of the table under "## Pages": its paths (backticked in the first cell) and the images its cells name. */
function pagesTable(markdown: string): Row[] {
  const section = markdown.split(/^## Pages$/m)[1]?.split(/^## /m)[0] ?? "";
  return section
    .split("\n")
    .filter((line) => line.startsWith("|") && !/^\|\s*(path|---)/.test(line))
    .map((line) => {
      const first = line.split("|")[1] ?? "";
      return {
        paths: [...first.matchAll(/`([^`]+)`/g)].map(([, p]) => p),
        images: [...line.matchAll(/src="(ui\/[\w-]+\.png)"/g)].map(([, src]) => src),
      };
    });
}

/** `/w/:slug/boards/:board` and `app/(admin)/w/[slug]/boards/[boardToken]` both become `/w/:*\/boards/:*`. */
const normalise = (route: string) => route.replace(/:[\w]+|\[[^\]]+\]/g, ":*");

function appRoutes(dir = path.join(root, "app"), prefix = ""): string[] {
  const routes: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile() && entry.name === "page.tsx") routes.push(prefix || "/");
    if (!entry.isDirectory() || entry.name.startsWith("_")) continue;
    const segment = /^\(.*\)$/.test(entry.name) ? "" : `/${entry.name}`;
    routes.push(...appRoutes(path.join(dir, entry.name), prefix + segment));
  }
  return routes;
}

describe("docs/ui.md screenshots", () => {
  const rows = pagesTable(doc);

  it("reads the pages table", () => {
    expect(rows.length).toBeGreaterThan(10);
  });

  it("shows every page of the app that renders something", () => {
    const listed = new Set(rows.flatMap((r) => r.paths).map(normalise));
    const missing = appRoutes().map(normalise).filter((r) => !REDIRECT_ONLY.has(r) && !listed.has(r));
    expect(missing, "pages under app/ missing from docs/ui.md's pages table").toEqual([]);
  });

  it("has a screenshot in docs/ui/ for each row of the table, and every picture it names is a PNG there", () => {
    for (const row of rows) expect(row.images.length, `a screenshot for ${row.paths.join(", ")}`).toBeGreaterThan(0);
    for (const src of new Set([...doc.matchAll(/(?:src="|\]\()(ui\/[^")]+)/g)].map(([, s]) => s))) {
      const file = path.join(root, "docs", src);
      expect(fs.existsSync(file), `docs/${src} exists`).toBe(true);
      expect(fs.readFileSync(file).subarray(0, 8).equals(PNG_SIGNATURE), `docs/${src} is a PNG`).toBe(true);
    }
  });

  it("names every picture in docs/ui/ (none left behind by a renamed shot)", () => {
    const named = new Set([...doc.matchAll(/ui\/([\w-]+\.png)/g)].map(([, f]) => f));
    const files = fs.readdirSync(path.join(root, "docs/ui")).filter((f) => f.endsWith(".png"));
    expect(files.filter((f) => !named.has(f))).toEqual([]);
  });
});
