import { formatBytes, formatDate } from "@/lib/client/format";
import type { Entry } from "./version-entry";

const ROWS: { label: string; value: (e: Entry) => string }[] = [
  { label: "Title", value: (e) => e.title ?? "—" },
  { label: "Media type", value: (e) => e.mediaType ?? "—" },
  { label: "Size", value: (e) => formatBytes(e.size) },
  { label: "MD5", value: (e) => e.md5 ?? "—" },
  { label: "Source", value: (e) => (e.isHead ? "current head" : (e.source ?? "—")) },
  { label: "Comment", value: (e) => e.comment ?? "—" },
  { label: "Author", value: (e) => e.author ?? "—" },
  { label: "Date", value: (e) => formatDate(e.at) },
];

const name = (e: Entry) => (e.isHead ? `v${e.number} (head)` : `v${e.number}`);

/** Two states side by side: their pictures, and their metadata with the differences marked. */
export function ComparePanel({ left, right, onClose }: { left: Entry; right: Entry; onClose: () => void }) {
  return (
    <section aria-labelledby="compare-heading" className="space-y-4 rounded-lg border border-indigo-200 bg-white p-4">
      <div className="flex items-center gap-3">
        <h3 id="compare-heading" className="font-semibold">
          Comparing {name(left)} and {name(right)}
        </h3>
        <button type="button" onClick={onClose} className="ml-auto text-sm text-indigo-700 underline">
          Close compare
        </button>
      </div>
      <div className="grid grid-cols-2 gap-4">
        {[left, right].map((e) => (
          <figure key={e.number} className="space-y-1">
            {e.image ? (
              // eslint-disable-next-line @next/next/no-img-element -- signed media URL of this server
              <img src={e.image} alt={`${name(e)} of the asset`} className="aspect-video w-full rounded-md bg-neutral-100 object-contain" />
            ) : (
              <div className="flex aspect-video items-center justify-center rounded-md bg-neutral-100 text-sm text-neutral-500">No picture</div>
            )}
            <figcaption className="text-center text-sm font-medium">{name(e)}</figcaption>
          </figure>
        ))}
      </div>
      <table className="w-full table-fixed text-sm">
        <caption className="sr-only">Metadata of both versions; differing values are marked.</caption>
        <thead>
          <tr className="text-left text-neutral-600">
            <th scope="col" className="w-28 py-1 font-medium">Field</th>
            <th scope="col" className="py-1 font-medium">{name(left)}</th>
            <th scope="col" className="py-1 font-medium">{name(right)}</th>
          </tr>
        </thead>
        <tbody>
          {ROWS.map((row) => {
            const a = row.value(left);
            const b = row.value(right);
            const differs = a !== b;
            return (
              <tr key={row.label} className="border-t border-neutral-100 align-top" data-differs={differs || undefined}>
                <th scope="row" className="py-1 pr-2 text-left font-normal text-neutral-600">
                  {row.label}
                  {differs ? <span className="sr-only"> (differs)</span> : null}
                </th>
                {[a, b].map((v, i) => (
                  <td key={i} className={`break-words py-1 pr-2 ${differs ? "bg-amber-50 font-medium" : ""}`}>
                    {v}
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
