/**
 * A field-by-field comparison of two states' metadata: what the newer one added, removed or
 * changed, and what stayed. Values are compared as displayed (strings); a missing or empty value
 * is "not set".
 */
export type FieldChange = "added" | "removed" | "changed" | "unchanged";

export type FieldDiff = { field: string; label: string; change: FieldChange; before: string | null; after: string | null };

export type FieldSpec<T> = {
  field: string;
  label: string;
  value: (state: T) => string | null | undefined;
  /** Whether the state records this field at all; a field one of the two states does not record is left out, not shown as added or removed. */
  known?: (state: T) => boolean;
};

const isSet = (v: string | null | undefined): v is string => v !== null && v !== undefined && v.trim() !== "";

export function diffField(before: string | null | undefined, after: string | null | undefined): FieldChange {
  if (!isSet(before)) return isSet(after) ? "added" : "unchanged";
  if (!isSet(after)) return "removed";
  return before === after ? "unchanged" : "changed";
}

/** Each field of `specs` both states record, in their order, from the `before` state to the `after` state. */
export function diffMetadata<T>(specs: FieldSpec<T>[], before: T, after: T): FieldDiff[] {
  const recorded = specs.filter((s) => !s.known || (s.known(before) && s.known(after)));
  return recorded.map(({ field, label, value }) => {
    const a = value(before);
    const b = value(after);
    return { field, label, change: diffField(a, b), before: isSet(a) ? a : null, after: isSet(b) ? b : null };
  });
}

/** How many fields changed in each way (the summary above the table). */
export function countChanges(diffs: FieldDiff[]): Record<FieldChange, number> {
  const counts: Record<FieldChange, number> = { added: 0, removed: 0, changed: 0, unchanged: 0 };
  for (const d of diffs) counts[d.change] += 1;
  return counts;
}
