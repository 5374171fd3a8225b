export type Changes = Record<string, { old: unknown; new: unknown }>;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The `changes` of an asset_updated event: each field whose value differs, with old and new. */
export function diffFields(before: Record<string, unknown>, after: Record<string, unknown>): Changes {
  const out: Changes = {};
  for (const key of Object.keys(after)) {
    if (after[key] !== undefined && !same(before[key], after[key])) out[key] = { old: before[key] ?? null, new: after[key] };
  }
  return out;
}

export const hasChanges = (c: Changes) => Object.keys(c).length > 0;
