"use client";

import { useRef, useState, type KeyboardEvent, type PointerEvent } from "react";

const clamp = (n: number) => Math.min(100, Math.max(0, Math.round(n)));

/** Keys that move the divider, and by how much (percent of the width); Shift makes arrows move 10. */
function nextPosition(key: string, shift: boolean, pos: number): number | null {
  const step = shift ? 10 : 1;
  switch (key) {
    case "ArrowLeft":
    case "ArrowDown":
      return clamp(pos - step);
    case "ArrowRight":
    case "ArrowUp":
      return clamp(pos + step);
    case "PageDown":
      return clamp(pos - 10);
    case "PageUp":
      return clamp(pos + 10);
    case "Home":
      return 0;
    case "End":
      return 100;
    default:
      return null;
  }
}

/**
 * Swipe compare: the two pictures on top of each other, `before` left of a divider and `after`
 * right of it. Drag anywhere on the pictures, or focus the divider and use the arrow keys
 * (Shift for steps of 10, Home/End for the edges).
 */
export function ImageSwipe({ before, after, beforeLabel, afterLabel }: { before: string; after: string; beforeLabel: string; afterLabel: string }) {
  const [pos, setPos] = useState(50);
  const box = useRef<HTMLDivElement>(null);
  const dragging = useRef(false);

  const follow = (clientX: number) => {
    const rect = box.current?.getBoundingClientRect();
    if (rect && rect.width > 0) setPos(clamp(((clientX - rect.left) / rect.width) * 100));
  };
  const onPointerDown = (e: PointerEvent<HTMLDivElement>) => {
    dragging.current = true;
    e.currentTarget.setPointerCapture(e.pointerId);
    follow(e.clientX);
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    if (dragging.current) follow(e.clientX);
  };
  const stop = () => {
    dragging.current = false;
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const next = nextPosition(e.key, e.shiftKey, pos);
    if (next === null) return;
    e.preventDefault();
    setPos(next);
  };

  return (
    <div
      ref={box}
      data-testid="swipe-compare"
      className="relative aspect-video w-full cursor-ew-resize touch-none select-none overflow-hidden rounded-md bg-neutral-100 dark:bg-neutral-800"
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={stop}
      onPointerCancel={stop}
    >
      {/* eslint-disable-next-line @next/next/no-img-element -- signed media URL of this server */}
      <img src={after} alt={afterLabel} draggable={false} className="absolute inset-0 h-full w-full object-contain" />
      {/* eslint-disable-next-line @next/next/no-img-element -- signed media URL of this server */}
      <img
        src={before}
        alt={beforeLabel}
        draggable={false}
        data-testid="swipe-before"
        className="absolute inset-0 h-full w-full object-contain"
        style={{ clipPath: `inset(0 ${100 - pos}% 0 0)` }}
      />
      <div
        role="slider"
        tabIndex={0}
        aria-label={`Swipe divider: ${beforeLabel} on the left, ${afterLabel} on the right`}
        aria-orientation="horizontal"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pos}
        aria-valuetext={`${pos}% ${beforeLabel}`}
        onKeyDown={onKeyDown}
        className="absolute inset-y-0 w-1 -translate-x-1/2 bg-white shadow-[0_0_0_1px_rgba(0,0,0,0.4)] outline-none focus-visible:ring-4 focus-visible:ring-indigo-500"
        style={{ left: `${pos}%` }}
      >
        <span aria-hidden className="absolute left-1/2 top-1/2 flex h-8 w-8 -translate-x-1/2 -translate-y-1/2 items-center justify-center rounded-full border border-neutral-300 bg-white text-xs text-neutral-700 shadow">
          ⇔
        </span>
      </div>
      <span className="pointer-events-none absolute left-2 top-2 rounded bg-black/60 px-1.5 py-0.5 text-xs text-white">{beforeLabel}</span>
      <span className="pointer-events-none absolute right-2 top-2 rounded bg-black/60 px-1.5 py-0.5 text-xs text-white">{afterLabel}</span>
    </div>
  );
}
