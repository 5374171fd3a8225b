"use client";

import { useState } from "react";
import { countChanges, diffMetadata, type FieldChange, type FieldSpec } from "@/lib/client/compare/metadata-diff";
import { formatBytes, formatDate } from "@/lib/client/format";
import { ImageOverlay } from "./image-overlay";
import { ImageSwipe } from "./image-swipe";
import type { Entry } from "./version-entry";

const FIELDS: FieldSpec<Entry>[] = [
  { field: "title", label: "Title", value: (e) => e.title },
  { field: "media_type", label: "Media type", value: (e) => e.mediaType },
  { field: "size", label: "Size", value: (e) => (e.size === null ? null : formatBytes(e.size)) },
  { field: "md5", label: "MD5", value: (e) => e.md5 },
  { field: "source", label: "Source", value: (e) => (e.isHead ? "current head" : e.source) },
  { field: "comment", label: "Comment", value: (e) => e.comment },
  // The live head's JSON names no author: the row is left out when the head is compared.
  { field: "author", label: "Author", value: (e) => e.author, known: (e) => !e.isHead },
  { field: "date", label: "Date", value: (e) => formatDate(e.at) },
];

const CHANGE_STYLE: Record<FieldChange, string> = {
  added: "bg-green-100 text-green-900 dark:bg-green-950 dark:text-green-200",
  removed: "bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200",
  changed: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200",
  unchanged: "text-neutral-600 dark:text-neutral-400",
};
const CHANGE_WORD: Record<FieldChange, string> = { added: "added", removed: "removed", changed: "changed", unchanged: "same" };

type Mode = "side" | "swipe" | "overlay";
const MODES: { mode: Mode; label: string }[] = [
  { mode: "side", label: "Side by side" },
  { mode: "swipe", label: "Swipe" },
  { mode: "overlay", label: "Overlay" },
];

const name = (e: Entry) => (e.isHead ? `v${e.number} (head)` : `v${e.number}`);

function SideBySide({ left, right }: { left: Entry; right: Entry }) {
  return (
    <div className="grid grid-cols-2 gap-4">
      {[left, right].map((e) => (
        <figure key={e.number} className="space-y-1">
          {e.image ? (
            // eslint-disable-next-line @next/next/no-img-element -- signed media URL of this server
            <img src={e.image} alt={`${name(e)} of the asset`} className="aspect-video w-full rounded-md bg-neutral-100 object-contain dark:bg-neutral-800" />
          ) : (
            <div className="flex aspect-video items-center justify-center rounded-md bg-neutral-100 text-sm text-neutral-600 dark:bg-neutral-800 dark:text-neutral-300">No picture</div>
          )}
          <figcaption className="text-center text-sm font-medium">{name(e)}</figcaption>
        </figure>
      ))}
    </div>
  );
}

/**
 * Two states compared: their pictures side by side, as a swipe (a draggable divider) or as an
 * overlay (an opacity slider), and their metadata field by field, from the older state (left) to
 * the newer one: what was added, removed or changed.
 */
export function ComparePanel({ left, right, onClose }: { left: Entry; right: Entry; onClose: () => void }) {
  const [mode, setMode] = useState<Mode>("side");
  const bothPictures = left.image !== null && right.image !== null;
  const shown: Mode = bothPictures ? mode : "side";
  const diffs = diffMetadata(FIELDS, left, right);
  const counts = countChanges(diffs);
  return (
    <section aria-labelledby="compare-heading" className="space-y-4 rounded-lg border border-indigo-200 bg-white p-4 dark:border-indigo-900 dark:bg-neutral-900">
      <div className="flex flex-wrap items-center gap-3">
        <h3 id="compare-heading" className="font-semibold">
          Comparing {name(left)} and {name(right)}
        </h3>
        {bothPictures ? (
          <div role="group" aria-label="Compare pictures" className="flex overflow-hidden rounded-md border border-neutral-300 text-sm dark:border-neutral-700">
            {MODES.map((m) => (
              <button
                key={m.mode}
                type="button"
                aria-pressed={shown === m.mode}
                onClick={() => setMode(m.mode)}
                className={`px-3 py-1 ${shown === m.mode ? "bg-indigo-600 text-white" : "bg-white text-neutral-800 hover:bg-neutral-100 dark:bg-neutral-900 dark:text-neutral-200 dark:hover:bg-neutral-800"}`}
              >
                {m.label}
              </button>
            ))}
          </div>
        ) : null}
        <button type="button" onClick={onClose} className="ml-auto text-sm text-indigo-700 underline dark:text-indigo-300">
          Close compare
        </button>
      </div>
      {shown === "swipe" && left.image && right.image ? (
        <ImageSwipe before={left.image} after={right.image} beforeLabel={name(left)} afterLabel={name(right)} />
      ) : shown === "overlay" && left.image && right.image ? (
        <ImageOverlay base={left.image} top={right.image} baseLabel={name(left)} topLabel={name(right)} />
      ) : (
        <SideBySide left={left} right={right} />
      )}
      <p className="text-sm text-neutral-700 dark:text-neutral-300" data-testid="diff-summary">
        From {name(left)} to {name(right)}: {counts.changed} changed, {counts.added} added, {counts.removed} removed, {counts.unchanged} the same.
      </p>
      <table className="w-full table-fixed text-sm">
        <caption className="sr-only">Metadata of both versions, field by field, with what changed from the older to the newer.</caption>
        <thead>
          <tr className="text-left text-neutral-600 dark:text-neutral-400">
            <th scope="col" className="w-28 py-1 font-medium">Field</th>
            <th scope="col" className="py-1 font-medium">{name(left)}</th>
            <th scope="col" className="py-1 font-medium">{name(right)}</th>
            <th scope="col" className="w-24 py-1 font-medium">Change</th>
          </tr>
        </thead>
        <tbody>
          {diffs.map((d) => {
            const differs = d.change !== "unchanged";
            return (
              <tr key={d.field} className="border-t border-neutral-100 align-top dark:border-neutral-800" data-differs={differs || undefined} data-change={d.change}>
                <th scope="row" className="py-1 pr-2 text-left font-normal text-neutral-600 dark:text-neutral-400">
                  {d.label}
                </th>
                {[d.before, d.after].map((v, i) => (
                  <td key={i} className={`break-words py-1 pr-2 ${differs ? "font-medium" : ""} ${d.change === "removed" && i === 1 ? "italic text-neutral-600 dark:text-neutral-400" : ""}`}>
                    {v ?? "—"}
                  </td>
                ))}
                <td className="py-1">
                  <span className={`rounded px-1.5 py-0.5 text-xs font-medium ${CHANGE_STYLE[d.change]}`}>{CHANGE_WORD[d.change]}</span>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
