import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect } from "./page-test";

/** WCAG 2.0 and 2.1, levels A and AA: what Easel's pages are held to. */
const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];
const BLOCKING = new Set(["serious", "critical"]);

/**
 * Runs axe on the page as it is now and records (softly, so one run reports every page) each
 * serious or critical violation: the rule, its impact, and every node it names with axe's summary.
 * `exclude` takes selectors of third-party nodes Easel cannot fix; each one is listed and
 * explained where it is passed and in docs/ui.md, "Accessibility".
 */
export async function expectNoSeriousViolations(page: Page, what: string, exclude: readonly string[] = []) {
  let builder = new AxeBuilder({ page }).withTags(WCAG_TAGS);
  for (const selector of exclude) builder = builder.exclude(selector);
  const { violations } = await builder.analyze();
  const blocking = violations
    .filter((v) => BLOCKING.has(v.impact ?? ""))
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}) ${n.target.join(" >> ")}: ${n.failureSummary?.replace(/\s+/g, " ") ?? v.help}`));
  expect.soft(blocking, `${what}: serious or critical accessibility violations`).toEqual([]);
}
