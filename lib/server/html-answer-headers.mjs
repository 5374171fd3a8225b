// @ts-check

/**
 * Headers for an answer that left the app without the page headers of proxy.ts (contract §12,
 * "Pages"): an HTML page proxy.ts did not run on, or an error of a path it does not run on, such
 * as Next.js's 404 for a missing `/_next/static/*` file (a `text/plain` "Not Found" in Next.js
 * 16, which a sniffing browser could still take for a page). Such an answer carries no nonce, so
 * its policy allows no script at all; it still shows, and it can be neither framed nor sniffed
 * into something else.
 */
export const FALLBACK_PAGE_HEADERS = Object.freeze({
  "content-security-policy": "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
});

/**
 * Makes every HTML answer and every error of `res` carry a Content-Security-Policy: when the app
 * sends one without a policy, the fallback page headers are added before the head goes out (a
 * header the app did set is kept). Static files and other successful answers are left alone (a
 * policy on a script would bind a worker made from it). Node writes the head through writeHead, also when the app only called
 * setHeader and write/end, so that is where it is checked.
 * @param {import("node:http").ServerResponse} res
 */
export function guardHtmlAnswers(res) {
  const writeHead = res.writeHead;
  /** @type {any} */ (res).writeHead = function (/** @type {any[]} */ ...args) {
    // writeHead(status, [message], [headers]): headers given here join those set before.
    const at = args.findIndex((a, i) => i > 0 && a !== null && typeof a === "object" && !Array.isArray(a));
    const given = at === -1 ? {} : args[at];
    const headerOf = (/** @type {string} */ name) => {
      const key = Object.keys(given).find((k) => k.toLowerCase() === name);
      return key !== undefined ? given[key] : res.getHeader(name);
    };
    const status = typeof args[0] === "number" ? args[0] : res.statusCode;
    const page = /^\s*text\/html\b/i.test(String(headerOf("content-type") ?? ""));
    if ((page || status >= 400) && headerOf("content-security-policy") === undefined) {
      const missing = Object.entries(FALLBACK_PAGE_HEADERS).filter(([name]) => headerOf(name) === undefined);
      if (at === -1) for (const [name, value] of missing) res.setHeader(name, value);
      else args[at] = { ...given, ...Object.fromEntries(missing) };
    }
    return writeHead.apply(this, /** @type {any} */ (args));
  };
}
