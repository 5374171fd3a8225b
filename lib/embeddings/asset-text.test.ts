import { describe, expect, it } from "vitest";
import { embeddingText, sourceHash } from "./asset-text";
import { MAX_INPUT_CHARS } from "./client";

const base = { title: "Team portrait", description: null, text: null, tags: [] as string[], fields: {} as Record<string, string>, mediaType: "image/png", media: {} };

describe("embeddingText", () => {
  it("reads words, then what processing measured, then the text", () => {
    const text = embeddingText({
      ...base,
      description: "The design team on the roof",
      text: "Shot for the 2026 annual report.",
      tags: ["team", "summer"],
      fields: { client: "Acme", empty: "" },
      media: { width: 600, height: 900, colors: ["red", "white"] },
    });
    expect(text).toBe(
      ["Team portrait", "The design team on the roof", "Tags: team, summer", "client: Acme", "image (image/png), 600×900, portrait, mostly red and white", "Shot for the 2026 annual report."].join("\n"),
    );
  });

  it("names videos, PDFs and durations", () => {
    expect(embeddingText({ ...base, title: "Launch film", mediaType: "video/mp4", media: { width: 1920, height: 1080, durationSeconds: 94.6 } })).toBe("Launch film\nvideo (video/mp4), 1920×1080, landscape, 95 seconds long");
    expect(embeddingText({ ...base, title: "Guide", mediaType: "application/pdf" })).toBe("Guide\nPDF document (application/pdf)");
  });

  it("stays within the input limit, cutting the text last", () => {
    const text = embeddingText({ ...base, text: "word ".repeat(5000) });
    expect(text.length).toBe(MAX_INPUT_CHARS);
    expect(text.startsWith("Team portrait\nimage (image/png)\n")).toBe(true);
  });

  it("hashes model and text together", () => {
    expect(sourceHash("m1", "x")).not.toBe(sourceHash("m2", "x"));
    expect(sourceHash("m1", "x")).toBe(sourceHash("m1", "x"));
  });
});
