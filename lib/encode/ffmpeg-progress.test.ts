import { expect, it } from "vitest";
import { progressReader } from "./ffmpeg-progress";

it("reads each report block's output position, across chunk boundaries, skipping blocks without one", () => {
  const seen: [number, boolean][] = [];
  const feed = progressReader((s, ended) => seen.push([s, ended]));
  feed("frame=0\nout_time_us=N/A\nout_time_ms=N/A\nprogress=continue\n");
  feed("frame=25\nout_time_us=1000");
  feed("000\nout_time_ms=1000000\nprogress=cont");
  feed("inue\nout_time_ms=2500000\nprogress=end\n");
  expect(seen).toEqual([
    [1, false],
    [2.5, true],
  ]);
});
