import { log } from "../log/logger.mjs";

/**
 * A catch handler for clean-up an encode can carry on without (a stale lease, a leftover
 * rendition, a scratch folder): the failure is logged with what it leaves behind, not dropped.
 */
export const logLost =
  (what: string, fields: Record<string, unknown> = {}) =>
  (err: unknown): undefined => {
    log().warn({ component: "encode", ...fields, err }, `${what} failed; left as it is`);
    return undefined;
  };
