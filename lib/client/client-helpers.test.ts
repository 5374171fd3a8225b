import { describe, expect, it } from "vitest";
import { ApiClientError, withQuery } from "./api";
import { describeError } from "./errors";
import { parseFields } from "./fields";
import { formatBytes, headMedia } from "./format";
import { assetIsSettling } from "./queries";
import type { Asset } from "./types";

const asset = (over: Partial<Asset>): Asset =>
  ({ media_type: "video/mp4", stream_url: null, encode_status: "queued", thumbnails: [], updated_at: new Date().toISOString(), ...over }) as Asset;

describe("client helpers", () => {
  it("withQuery drops empty values and encodes the rest", () => {
    expect(withQuery("/v1/a/search", { query: "red & blue", page: 2, board_token: undefined, x: "" })).toBe("/v1/a/search?query=red+%26+blue&page=2");
    expect(withQuery("/v1/a/boards")).toBe("/v1/a/boards");
  });

  it("describeError words errors by code, keeping the code", () => {
    expect(describeError(new ApiClientError(403, "revert_window_exceeded", "x", { revert_window_days: 7 }))).toBe(
      "This version is older than the plan's revert window of 7 days, so it can no longer be restored. (revert_window_exceeded)",
    );
    expect(describeError(new ApiClientError(418, "teapot", "I am a teapot"))).toBe("I am a teapot (teapot)");
  });

  it("polls a video until it has a stream or failed, never afterwards", () => {
    expect(assetIsSettling(asset({}))).toBe(true);
    expect(assetIsSettling(asset({ stream_url: "http://x/stream", encode_status: "ready", thumbnails: [{ size: "small", url: "", width: 1, height: 1 }] }))).toBe(false);
    expect(assetIsSettling(asset({ encode_status: "failed", thumbnails: [{ size: "small", url: "", width: 1, height: 1 }] }))).toBe(false);
    expect(assetIsSettling(asset({ media_type: "image/png", encode_status: "none", updated_at: "2020-01-01T00:00:00Z" }))).toBe(false);
    expect(assetIsSettling(asset({ media_type: "image/png", encode_status: "none" }))).toBe(true);
  });

  it("head media links change with the content and keep their signature", () => {
    const url = "http://h/media/abc/display?exp=1&sig=s";
    expect(headMedia(url, "0123456789abcdef0123456789abcdef")).toBe("http://h/media/abc/display?exp=1&sig=s&v=0123456789ab");
  });

  it("custom fields are one 'name: value' per line", () => {
    expect(parseFields("client: ACME\n\nshot: 12:30")).toEqual({ client: "ACME", shot: "12:30" });
    expect(parseFields("no colon here")).toMatch(/not “name: value”/);
  });

  it("formats sizes in binary units", () => {
    expect(formatBytes(6 * 1024 * 1024 + 1)).toBe("6.0 MiB");
    expect(formatBytes(512)).toBe("512 B");
  });
});
