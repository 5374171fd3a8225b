import { describe, expect, it } from "vitest";
import type { Asset } from "../types";
import { downloadName, originalUrl } from "./bulk-actions";

const asset = (title: string, media_type: string, token = "Tok3n_x") => ({ token, title, media_type }) as Asset;

describe("downloadName", () => {
  it("keeps a title that has an extension, and adds the subtype to one that has none", () => {
    expect(downloadName(asset("sunrise.png", "image/png"))).toBe("sunrise.png");
    expect(downloadName(asset("Sunrise", "image/png"))).toBe("Sunrise.png");
    expect(downloadName(asset("Logo", "image/svg+xml"))).toBe("Logo.svg");
  });

  it("replaces characters file systems refuse, and falls back to the token", () => {
    expect(downloadName(asset("a/b:c*d", "application/pdf"))).toBe("a_b_c_d.pdf");
    expect(downloadName(asset("   ", "application/octet-stream"))).toBe("Tok3n_x.octet-stream");
  });
});

describe("originalUrl", () => {
  it("points at the original's media route with the board access token, both encoded", () => {
    expect(originalUrl(asset("x", "image/png", "tok/en"), "a.b+c")).toBe("/media/tok%2Fen/original?token=a.b%2Bc");
  });
});
