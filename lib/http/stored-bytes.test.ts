import { describe, expect, it } from "vitest";
import { applyStoredBytesHeaders, isInlineSafe, parseMediaType, STORED_BYTES_CSP, storedBytesHeaders } from "./stored-bytes";

describe("parseMediaType", () => {
  it.each([
    ["image/png", { essence: "image/png", charset: null }],
    ["IMAGE/PNG", { essence: "image/png", charset: null }],
    ["  text/html ; charset=UTF-8 ", { essence: "text/html", charset: "utf-8" }],
    ['text/plain; charset="iso-8859-1"', { essence: "text/plain", charset: "iso-8859-1" }],
    ["application/vnd.apple.mpegurl", { essence: "application/vnd.apple.mpegurl", charset: null }],
    ["video/mp4; codecs=avc1", { essence: "video/mp4", charset: null }],
  ])("reads %j", (value, expected) => {
    expect(parseMediaType(value)).toEqual(expected);
  });

  it.each([
    null,
    undefined,
    "",
    "png",
    "image/",
    "/png",
    "text/html, image/png",
    "image/png, text/html",
    "image/png\r\nX-Injected: 1",
    "image/png; charset",
    "text/html; charset=utf-8; charset=utf-7",
    'text/html; charset="utf-8, image/png"',
    "image/png;foo=bar;baz",
    "image/png\u0000",
    `image/${"a".repeat(300)}`,
  ])("refuses %j", (value) => {
    expect(parseMediaType(value)).toBeNull();
  });
});

describe("isInlineSafe", () => {
  it.each(["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "video/mp4", "video/iso.segment", "video/mp2t", "video/webm", "audio/mpeg", "audio/mp4", "application/vnd.apple.mpegurl", "application/x-mpegurl"])(
    "shows %s inline",
    (essence) => expect(isInlineSafe(essence)).toBe(true),
  );

  it.each([
    "text/html",
    "application/xhtml+xml",
    "image/svg+xml",
    "application/xml",
    "text/xml",
    "text/xsl",
    "application/javascript",
    "text/javascript",
    "application/pdf",
    "text/plain",
    "application/octet-stream",
    "image/x-icon",
    "image/tiff",
    "video/vnd.example+xml",
    "audio/something+json",
    "multipart/x-mixed-replace",
  ])("sends %s as an attachment", (essence) => expect(isInlineSafe(essence)).toBe(false));
});

describe("storedBytesHeaders", () => {
  it("sends an allow-listed type inline, normalised, with nosniff and the sandbox CSP", () => {
    expect(storedBytesHeaders("Image/PNG; foo=bar")).toEqual({
      "Content-Type": "image/png",
      "Content-Disposition": "inline",
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; sandbox",
    });
    expect(STORED_BYTES_CSP).toBe("default-src 'none'; sandbox");
  });

  it.each([
    ["text/html", "text/html"],
    ["text/html; charset=utf-8", "text/html; charset=utf-8"],
    ["application/xhtml+xml", "application/xhtml+xml"],
    ["image/svg+xml", "image/svg+xml"],
    ["application/xml", "application/xml"],
    ["application/pdf", "application/pdf"],
  ])("sends %s as an attachment of type %s", (stored, sent) => {
    const h = storedBytesHeaders(stored);
    expect([h["Content-Type"], h["Content-Disposition"], h["X-Content-Type-Options"], h["Content-Security-Policy"]]).toEqual([sent, "attachment", "nosniff", STORED_BYTES_CSP]);
  });

  it.each(["text/javascript", "application/javascript; charset=utf-8", "application/x-javascript", "text/css"])("sends code (%s) as opaque bytes, so no page can load it as a script or stylesheet", (stored) => {
    expect(storedBytesHeaders(stored)).toMatchObject({ "Content-Type": "application/octet-stream", "Content-Disposition": "attachment" });
  });

  it.each([null, "", "text/html, image/png", "image/png, text/html", "nonsense", "image/png\nSet-Cookie: a=b"])("sends a missing or malformed type (%j) as opaque bytes, as an attachment", (stored) => {
    expect(storedBytesHeaders(stored)).toMatchObject({ "Content-Type": "application/octet-stream", "Content-Disposition": "attachment" });
  });

  it("decides inline or attachment itself, keeping only a well-formed file name of a stored or requested disposition", () => {
    expect(storedBytesHeaders("text/html", "inline")["Content-Disposition"]).toBe("attachment");
    expect(storedBytesHeaders("text/html", 'inline; filename="page.html"')["Content-Disposition"]).toBe('attachment; filename="page.html"');
    expect(storedBytesHeaders("image/png", 'attachment; filename="a b.png"')["Content-Disposition"]).toBe('inline; filename="a b.png"');
    expect(storedBytesHeaders("image/png", "attachment; filename=pic.png")["Content-Disposition"]).toBe('inline; filename="pic.png"');
    expect(storedBytesHeaders("image/svg+xml", "attachment; filename*=UTF-8''caf%C3%A9.svg")["Content-Disposition"]).toBe("attachment; filename*=UTF-8''caf%C3%A9.svg");
    // A name that would break out of its quotes, or a header smuggled after it, is dropped.
    expect(storedBytesHeaders("text/html", 'inline; filename="a"; x="b\\"c"')["Content-Disposition"]).toBe('attachment; filename="a"');
    expect(storedBytesHeaders("text/html", 'inline; filename="x\r\nSet-Cookie: a=b"')["Content-Disposition"]).toBe("attachment");
    expect(storedBytesHeaders("text/html", "garbage")["Content-Disposition"]).toBe("attachment");
  });

  it("replaces whatever a Headers object carried", () => {
    const headers = new Headers({ "content-type": "text/html", "content-disposition": "inline", "content-security-policy": "script-src *", "x-content-type-options": "sniff", etag: '"e"' });
    applyStoredBytesHeaders(headers, headers.get("content-type"), headers.get("content-disposition"));
    expect(Object.fromEntries(headers)).toEqual({
      "content-type": "text/html",
      "content-disposition": "attachment",
      "content-security-policy": STORED_BYTES_CSP,
      "x-content-type-options": "nosniff",
      etag: '"e"',
    });
  });
});
