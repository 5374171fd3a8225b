import { expect, it } from "vitest";
import { sniffMediaType } from "./sniff";

const bytes = (...parts: (string | number[])[]) =>
  new Uint8Array(parts.flatMap((p) => (typeof p === "string" ? [...p].map((c) => c.charCodeAt(0)) : p)));

it.each([
  [bytes([0x89], "PNG", [0x0d, 0x0a, 0x1a, 0x0a]), "image/png"],
  [bytes([0xff, 0xd8, 0xff, 0xe0]), "image/jpeg"],
  [bytes("GIF89a"), "image/gif"],
  [bytes("RIFF", [0, 0, 0, 0], "WEBP"), "image/webp"],
  [bytes([0, 0, 0, 0x20], "ftypisom"), "video/mp4"],
  [bytes([0, 0, 0, 0x14], "ftypqt  "), "video/quicktime"],
  [bytes([0x1a, 0x45, 0xdf, 0xa3]), "video/webm"],
  [bytes("%PDF-1.7"), "application/pdf"],
  [bytes("ID3", [3, 0]), "audio/mpeg"],
  [bytes("hello world"), null],
  [bytes(), null],
])("sniffs %#", (head, expected) => {
  expect(sniffMediaType(head)).toBe(expected);
});
