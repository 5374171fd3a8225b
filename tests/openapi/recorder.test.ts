import { describe, expect, it } from "vitest";
import { checkResponse } from "./recorder";

// The recorder is what makes the whole integration suite a check of the document; these show
// that it refuses what it should, so a green suite means something.

const rate = () => new Headers({ "RateLimit-Limit": "600", "RateLimit-Remaining": "599", "RateLimit-Reset": "60" });
const board = { token: "b1", title: "Board", parent_token: null, state: "active", created_at: "2025-01-01T00:00:00.000Z", updated_at: "2025-01-01T00:00:00.000Z" };
const pagy = { current_page: 1, page_items: 1, total_pages: 1, total_count: 1 };
const error = (code: string) => ({ errors: [{ message: "m", extensions: { code } }] });
const seen = (method: string, path: string, status: number, body: unknown, headers = rate()) => ({
  method,
  path,
  status,
  headers,
  body,
  text: body === undefined ? "" : JSON.stringify(body),
});

describe("checkResponse", () => {
  it("accepts a documented body, and ignores paths outside /v1 and preflights", () => {
    expect(() => checkResponse(seen("GET", "/v1/acme/boards?page=1", 200, { data: [board], pagy }))).not.toThrow();
    expect(() => checkResponse(seen("POST", "/v1/acme/boards", 403, error("board_scoped_token")))).not.toThrow();
    expect(() => checkResponse(seen("GET", "/media/x/display", 200, "bytes", new Headers()))).not.toThrow();
    expect(() => checkResponse(seen("OPTIONS", "/v1/acme/boards", 204, undefined, new Headers()))).not.toThrow();
  });

  it("refuses an unknown key, a missing key and a wrong type", () => {
    expect(() => checkResponse(seen("GET", "/v1/acme/boards", 200, { data: [{ ...board, extra: 1 }], pagy }))).toThrow(/listBoards/);
    const { state: _state, ...missing } = board;
    expect(() => checkResponse(seen("GET", "/v1/acme/boards", 200, { data: [missing], pagy }))).toThrow(/state/);
    expect(() => checkResponse(seen("GET", "/v1/acme/boards", 200, { data: [{ ...board, created_at: "yesterday" }], pagy }))).toThrow(/created_at/);
  });

  it("refuses an undocumented status, and an error code not documented for that status", () => {
    expect(() => checkResponse(seen("GET", "/v1/acme/boards", 201, { data: [board], pagy }))).toThrow(/not documented/);
    // a board access token is accepted by listBoards, so board_scoped_token is not among its codes
    expect(() => checkResponse(seen("GET", "/v1/acme/boards", 403, error("board_scoped_token")))).toThrow(/listBoards/);
    expect(() => checkResponse(seen("GET", "/v1/acme/boards", 404, error("asset_not_found")))).toThrow(/code/);
  });

  it("refuses a body on a documented 204, and a response without the RateLimit headers", () => {
    expect(() => checkResponse(seen("DELETE", "/v1/acme/assets/a1", 204, { ok: true }))).toThrow(/without a body/);
    expect(() => checkResponse(seen("GET", "/v1/acme/boards", 200, { data: [board], pagy }, new Headers()))).toThrow(/ratelimit-limit/);
  });

  it("prefers a static segment: upload_complete is not an asset token", () => {
    expect(() => checkResponse(seen("POST", "/v1/acme/assets/upload_complete", 422, error("invalid_signed_storage_id")))).not.toThrow();
    expect(() => checkResponse(seen("GET", "/v1/acme/assets/upload_complete", 405, error("method_not_allowed")))).not.toThrow();
  });

  it("expects the route_not_found and method_not_allowed envelopes where no operation is documented", () => {
    expect(() => checkResponse(seen("GET", "/v1/acme/nope", 404, error("route_not_found")))).not.toThrow();
    expect(() => checkResponse(seen("PUT", "/v1/acme/boards", 405, error("method_not_allowed")))).not.toThrow();
    expect(() => checkResponse(seen("PUT", "/v1/acme/boards", 200, { data: [] }))).toThrow(/no documented operation/);
  });
});
