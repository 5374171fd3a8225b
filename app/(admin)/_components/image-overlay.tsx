"use client";

import { useId, useState } from "react";

/** Overlay compare: `top` over `base`, its opacity set with a slider (0 % shows only `base`). */
export function ImageOverlay({ base, top, baseLabel, topLabel }: { base: string; top: string; baseLabel: string; topLabel: string }) {
  const [opacity, setOpacity] = useState(50);
  const id = useId();
  return (
    <div className="space-y-2">
      <div data-testid="overlay-compare" className="relative aspect-video w-full overflow-hidden rounded-md bg-neutral-100 dark:bg-neutral-800">
        {/* eslint-disable-next-line @next/next/no-img-element -- signed media URL of this server */}
        <img src={base} alt={baseLabel} className="absolute inset-0 h-full w-full object-contain" />
        {/* eslint-disable-next-line @next/next/no-img-element -- signed media URL of this server */}
        <img src={top} alt={`${topLabel}, over ${baseLabel}`} data-testid="overlay-top" className="absolute inset-0 h-full w-full object-contain" style={{ opacity: opacity / 100 }} />
      </div>
      <div className="flex items-center gap-3 text-sm">
        <label htmlFor={id} className="text-neutral-700 dark:text-neutral-300">
          Opacity of {topLabel}
        </label>
        <input id={id} type="range" min={0} max={100} step={1} value={opacity} onChange={(e) => setOpacity(Number(e.target.value))} className="flex-1 accent-indigo-600" />
        <output htmlFor={id} className="w-12 text-right tabular-nums">
          {opacity}%
        </output>
      </div>
    </div>
  );
}
