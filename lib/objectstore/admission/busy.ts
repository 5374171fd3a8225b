import { BUSY_RETRY_AFTER_S } from "./store-admission";

/**
 * A refused body is answered before a byte of it is read, so the connection is closed after the
 * answer (the unread body would otherwise be the next request on it) and the client is told when
 * to come back.
 */
export function asBusyAnswer(response: Response): Response {
  response.headers.set("retry-after", String(BUSY_RETRY_AFTER_S));
  response.headers.set("connection", "close");
  return response;
}
