import { describe, expect, it } from "vitest";
import { parseQuery, type Intent } from "./parse-query";

const now = new Date("2026-11-26T15:00:00Z");
const day = (s: string) => new Date(`${s}T00:00:00Z`);

type Expect = Partial<Omit<Intent, "explanation">>;

const cases: [string, Expect][] = [
  ["videos", { kinds: ["video"] }],
  ["photos", { kinds: ["image"] }],
  ["show me all the pictures", { kinds: ["image"], words: [] }],
  ["pdf documents", { kinds: ["pdf"] }],
  ["songs", { kinds: ["audio"] }],
  ["videos from last week", { kinds: ["video"], since: day("2026-11-19") }],
  ["photos from yesterday", { kinds: ["image"], since: day("2026-11-25"), until: day("2026-11-26") }],
  ["clips uploaded today", { kinds: ["video"], since: day("2026-11-26") }],
  ["images since March", { kinds: ["image"], since: day("2026-03-01") }],
  ["screenshots in 2025", { kinds: ["image"], since: day("2025-01-01"), until: day("2026-01-01") }],
  ["files before june", { until: day("2026-06-01") }],
  ["photos in october", { kinds: ["image"], since: day("2026-10-01"), until: day("2026-11-01") }],
  ["videos from the last 3 days", { kinds: ["video"], since: day("2026-11-23") }],
  ["pictures from the past two weeks", { kinds: ["image"], since: day("2026-11-12") }],
  ["assets this month", { since: day("2026-11-01") }],
  ["things older than a year", { until: day("2025-11-26") }],
  ["portrait photos", { kinds: ["image"], orientation: "portrait" }],
  ["vertical videos", { kinds: ["video"], orientation: "portrait" }],
  ["landscape pictures", { kinds: ["image"], orientation: "landscape" }],
  ["square images", { kinds: ["image"], orientation: "square" }],
  ["videos longer than a minute", { kinds: ["video"], minDurationSeconds: 60 }],
  ["clips shorter than 30 seconds", { kinds: ["video"], maxDurationSeconds: 30 }],
  ["videos over 2 minutes", { kinds: ["video"], minDurationSeconds: 120 }],
  ["recordings under 10s", { kinds: ["audio"], maxDurationSeconds: 10 }],
  ["files larger than 5 mb", { minBytes: 5_000_000 }],
  ["images smaller than 100kb", { kinds: ["image"], maxBytes: 100_000 }],
  ["red photos", { kinds: ["image"], colors: ["red"] }],
  ["blue and green pictures", { kinds: ["image"], colors: ["blue", "green"] }],
  ["grey images", { kinds: ["image"], colors: ["gray"] }],
  ["photos that are not blue", { kinds: ["image"], notColors: ["blue"] }],
  ["everything but not videos", { notKinds: ["video"] }],
  ["beach photos without people", { kinds: ["image"], words: ["beach"], notWords: ["people"] }],
  ["photos tagged summer", { kinds: ["image"], tags: ["summer"] }],
  ["#launch videos", { kinds: ["video"], tags: ["launch"] }],
  ["sunset over the harbour", { words: ["sunset", "over", "harbour"] }],
  ["find my logo files", { words: ["logo"] }],
  ["red portrait photos of the team from last month", { kinds: ["image"], colors: ["red"], orientation: "portrait", words: ["team"], since: day("2026-10-27") }],
];

describe("parseQuery reads natural-language searches", () => {
  it.each(cases)("%s", (query, expected) => {
    const intent = parseQuery(query, now);
    const defaults = { kinds: [], notKinds: [], colors: [], notColors: [], tags: [], words: [], notWords: [] };
    const { explanation, ...got } = intent;
    expect(got).toMatchObject({ ...defaults, ...expected });
    for (const key of ["since", "until", "orientation", "minDurationSeconds", "maxDurationSeconds", "minBytes", "maxBytes"] as const) {
      if (!(key in expected)) expect(got[key], key).toBeUndefined();
    }
    expect(explanation.length > 0 || Object.keys(expected).length === 0).toBe(true);
  });

  it("has at least 30 phrasings", () => expect(cases.length).toBeGreaterThanOrEqual(30));
});
