import { expect, it } from "vitest";
import { normalizeConcurrency } from "./sync";

it("reads every form of `concurrency` the SDK syncs", () => {
  expect(normalizeConcurrency(undefined)).toEqual([]);
  expect(normalizeConcurrency(2)).toEqual([{ limit: 2 }]);
  expect(normalizeConcurrency({ limit: 1 })).toEqual([{ limit: 1 }]);
  expect(normalizeConcurrency([{ limit: 2 }, { key: "event.data.assetId", limit: 1 }])).toEqual([{ limit: 2 }, { key: "event.data.assetId", limit: 1 }]);
});
