import { describeProgress, percentOf, type EncodeProgressValue } from "@/lib/client/encode-progress";

/**
 * How far a running encode has come: a bar with the rung and the estimate. Its values are the
 * asset's `encode_progress`, read again whenever the live updates say the asset changed (no
 * polling), so it moves as the encode reports. `compact`: the board card's one-line form.
 */
export function EncodeProgressBar({ progress, compact = false }: { progress: EncodeProgressValue; compact?: boolean }) {
  const percent = percentOf(progress.fraction);
  const text = describeProgress(progress);
  return (
    <div className={compact ? "w-full" : "w-full max-w-md space-y-1"}>
      <div
        role="progressbar"
        aria-label="Encode progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={text}
        data-testid="encode-progress"
        className={`overflow-hidden rounded-full bg-neutral-700/60 ${compact ? "h-1" : "h-2"}`}
      >
        <div className="h-full rounded-full bg-indigo-400 transition-[width] duration-500" style={{ width: `${percent}%` }} />
      </div>
      {compact ? null : (
        <p className="text-center text-sm text-neutral-200" data-testid="encode-progress-text">
          {text}
        </p>
      )}
    </div>
  );
}
