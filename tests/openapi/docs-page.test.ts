import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import ApiReferencePage from "../../app/docs/api/page";
import { openApiDocument } from "../../lib/openapi/document";
import { OPERATIONS } from "../../lib/openapi/operations";

describe("/docs/api", () => {
  const html = renderToStaticMarkup(ApiReferencePage());
  const doc = openApiDocument();

  it("renders every operation, every named schema and every webhook event, each with its anchor", () => {
    for (const op of OPERATIONS) {
      expect(html, op.operationId).toContain(`id="op-${op.operationId}"`);
      expect(html, op.operationId).toContain(`>${op.path}<`);
    }
    for (const name of Object.keys(doc.components.schemas)) expect(html, name).toContain(`id="schema-${name}"`);
    for (const event of Object.keys(doc.webhooks)) expect(html, event).toContain(`>${event}<`);
  });

  it("links every schema reference to a schema on the page, and lists each operation's error codes", () => {
    const links = [...html.matchAll(/href="#(schema-[\w-]+)"/g)].map(([, id]) => id);
    expect(links.length).toBeGreaterThan(50);
    for (const id of new Set(links)) expect(html, id).toContain(`id="${id}"`);
    expect(html).toContain("board_scoped_token");
    expect(html).toContain("revert_window_exceeded");
  });

  it("loads nothing from elsewhere and renders markup, not HTML strings", () => {
    expect(html).not.toMatch(/<script|<link|https?:\/\/(?!json-schema\.org)/);
    expect(html).not.toContain("&lt;code&gt;");
  });
});
