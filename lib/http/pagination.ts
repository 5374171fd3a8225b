import { z } from "zod";
import { BOUNDS } from "./bounds";
import { queryInt } from "./parse";

export type Page = { page: number; perPage: number };
export type Pagy = { current_page: number; page_items: number; total_pages: number; total_count: number };

/** `page` (default 1) and `per_page` (1..100, default 20, or the route's own default). */
export const pageQuery = (defaultPerPage = 20) =>
  z.object({
    page: queryInt(1, BOUNDS.page).optional().default(1),
    per_page: queryInt(1, BOUNDS.perPage).optional().default(defaultPerPage),
  });

export function toPage(q: { page: number; per_page: number }): Page {
  return { page: q.page, perPage: q.per_page };
}

export function pagy(page: Page, itemsOnPage: number, totalCount: number): Pagy {
  return {
    current_page: page.page,
    page_items: itemsOnPage,
    total_pages: Math.max(1, Math.ceil(totalCount / page.perPage)),
    total_count: totalCount,
  };
}

export const offsetOf = (page: Page) => (page.page - 1) * page.perPage;
