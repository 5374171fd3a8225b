import { expect, test as base } from "@playwright/test";

/**
 * The UI specs' `test`: it also records every Content-Security-Policy violation on the test's page
 * (the `securitypolicyviolation` event, and the console's CSP errors) and fails the test if there
 * was any, so every flow of the suite shows the pages work under their policy (proxy.ts).
 */
export const test = base.extend<{ cspViolations: string[] }>({
  cspViolations: [
    async ({ page }, use) => {
      const seen: string[] = [];
      await page.exposeBinding("__easelCspViolation", (_source, violation: string) => void seen.push(violation));
      // Init scripts are installed by the browser's debugging protocol, outside the page's own policy.
      await page.addInitScript(() => {
        document.addEventListener("securitypolicyviolation", (e) => {
          const report = (window as unknown as { __easelCspViolation: (v: string) => void }).__easelCspViolation;
          report(`${e.effectiveDirective} blocked ${e.blockedURI || "inline"} (${e.sourceFile || location.href}:${e.lineNumber}) on ${location.pathname}`);
        });
      });
      page.on("console", (m) => {
        if (m.type() === "error" && /Content[- ]Security[- ]Policy/i.test(m.text())) seen.push(`console: ${m.text()}`);
      });
      await use(seen);
      expect(seen, "Content-Security-Policy violations on Easel's pages").toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };
