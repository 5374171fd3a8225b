// @ts-check
/**
 * A request path to its route template (`/v1/[slug]/assets/[token]`), for metric labels and the
 * access log: a template never carries a slug, a token or a key, and the set of templates is
 * bounded, where raw paths are neither.
 *
 * The templates are read from the app/ directory's route and page files when the server starts.
 * That tree is the source Next.js builds its routes from and is where Easel runs from (`npm start`
 * runs Next.js on this checkout), so it is there in production, under `next dev` and in tests
 * alike; the build's own manifest (.next/…/app-paths-manifest.json) exists only after a build and
 * its format is Next.js's private business. Matching follows the App Router's precedence: a static
 * segment before a dynamic one, before a catch-all, before an optional catch-all.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** What a path no route serves is counted and logged as. */
export const UNMATCHED = "unmatched";

/** Answered by Easel's server itself, or by Next.js outside app/ (its static files). */
const FIXED_TEMPLATES = ["/healthz", "/readyz", "/metrics", "/_next/[...path]"];

/** Files that make a folder of app/ a route (route handlers and pages). */
const ROUTE_FILE = /^(route|page)\.(ts|tsx|js|jsx|mjs)$/;

/**
 * @typedef {object} Node
 * @property {Map<string, Node>} fixed
 * @property {Node | null} dynamic
 * @property {string | null} catchAll template of a `[...x]` child
 * @property {string | null} optionalCatchAll template of a `[[...x]]` child
 * @property {string | null} template when a route ends here
 */

/** @returns {Node} */
const newNode = () => ({ fixed: new Map(), dynamic: null, catchAll: null, optionalCatchAll: null, template: null });

/**
 * Route templates under `appDir`: each folder holding a route or page file, with route groups
 * `(x)` and parallel-route slots `@x` left out of the path, and private folders `_x` and
 * intercepting routes `(.)x` skipped (they serve no path of their own).
 * @param {string} appDir
 * @returns {string[]}
 */
export function appRouteTemplates(appDir) {
  /** @type {string[]} */
  const out = [];
  /** @param {string} dir @param {string[]} segments */
  const walk = (dir, segments) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.isFile() && ROUTE_FILE.test(entry.name)) out.push(`/${segments.join("/")}`);
      if (!entry.isDirectory()) continue;
      const name = entry.name;
      if (name.startsWith("_") || name.startsWith("(.")) continue;
      const grouping = (name.startsWith("(") && name.endsWith(")")) || name.startsWith("@");
      walk(path.join(dir, name), grouping ? segments : [...segments, name]);
    }
  };
  walk(appDir, []);
  return [...new Set(out)].sort();
}

/**
 * A matcher from a request path (without query) to one of `templates`, or UNMATCHED.
 * @param {string[]} templates
 * @returns {(pathname: string) => string}
 */
export function routeMatcher(templates) {
  const root = newNode();
  for (const template of templates) {
    let node = root;
    const segments = template.split("/").filter(Boolean);
    for (const [i, segment] of segments.entries()) {
      if (segment.startsWith("[[...")) {
        node.optionalCatchAll = template;
        break;
      }
      if (segment.startsWith("[...")) {
        node.catchAll = template;
        break;
      }
      if (segment.startsWith("[")) node = node.dynamic ??= newNode();
      else {
        let next = node.fixed.get(segment);
        if (!next) node.fixed.set(segment, (next = newNode()));
        node = next;
      }
      if (i === segments.length - 1) node.template = template;
    }
    if (segments.length === 0) root.template = template;
  }
  return (pathname) => {
    // "/a/b/" is "/a/b" (the server redirects neither: skipTrailingSlashRedirect), "//" no segment.
    const segments = pathname.split("/").filter(Boolean);
    return match(root, segments, 0) ?? UNMATCHED;
  };
}

/**
 * @param {Node} node @param {string[]} segments @param {number} i
 * @returns {string | null}
 */
function match(node, segments, i) {
  if (i === segments.length) return node.template ?? node.optionalCatchAll;
  const fixed = node.fixed.get(segments[i]);
  const viaFixed = fixed ? match(fixed, segments, i + 1) : null;
  if (viaFixed) return viaFixed;
  const viaDynamic = node.dynamic ? match(node.dynamic, segments, i + 1) : null;
  if (viaDynamic) return viaDynamic;
  return node.catchAll ?? node.optionalCatchAll;
}

/** The app's directory: two levels up from this file. */
const APP_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../app");

/**
 * The matcher for this checkout's app (read once per process). Without an app/ folder (a
 * deployment that left the sources out) only the fixed templates match; that is logged once.
 * @param {(message: string) => void} warn
 */
export function appRouteMatcher(warn) {
  /** @type {string[]} */
  let templates = [];
  try {
    templates = appRouteTemplates(APP_DIR);
  } catch (err) {
    warn(`route templates: cannot read ${APP_DIR} (${/** @type {Error} */ (err).message}); requests to the app count as "${UNMATCHED}"`);
  }
  return routeMatcher([...FIXED_TEMPLATES, ...templates]);
}
