import { env } from "../../env";
import { log } from "../../log/logger.mjs";

/**
 * A test hook: with EASEL_TEST_CLOCK=1 (test servers only) and EASEL_TEST_OUTBOX_PAUSE_MS set, a
 * write waits that long between its commit and the hand-off of its events, and says so on
 * stdout, so that a test can kill the process inside that window. Read from process.env here
 * rather than lib/env.ts: it is no setting, and nothing outside tests may depend on it.
 */
export async function testPauseBeforeHandOff(ids: string[]): Promise<void> {
  if (!env().EASEL_TEST_CLOCK) return;
  const ms = Number(process.env.EASEL_TEST_OUTBOX_PAUSE_MS ?? "");
  if (!Number.isFinite(ms) || ms <= 0) return;
  log().info({ component: "outbox", pause_ms: ms, outbox_ids: ids }, "test pause after commit, before the hand-off");
  await new Promise((r) => setTimeout(r, ms));
}
