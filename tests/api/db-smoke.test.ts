import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { queryRows } from "../../lib/db";
import { testDb } from "../helpers/db";

it("opens the migrated test database", async () => {
  const { db } = await testDb();
  const rows = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from workspaces`);
  expect(rows[0].n).toBeGreaterThanOrEqual(0);
});
