import fs from "node:fs/promises";
import { beginHold, deferIfHeld, endHold, type Hold } from "./holds";

export { noteDeletedRecord } from "./holds";

/**
 * Files being read are pinned: replacing or deleting an object retires its files, and a retired
 * file that a reader still streams is removed only when the last reader lets go. A GET that has
 * started therefore always finishes with the bytes it started with, even across an overwrite.
 * While a backup holds the store (holds.ts), retired files wait for the hold to end as well.
 * (One process owns the store's files, so an in-process count is the whole story.)
 */
type PinState = { pins: Map<string, number>; retired: Set<string> };
const state: PinState = ((globalThis as { __easelStorePins?: PinState }).__easelStorePins ??= { pins: new Map(), retired: new Set() });

export function pin(files: string[]): void {
  for (const f of files) state.pins.set(f, (state.pins.get(f) ?? 0) + 1);
}

export async function unpin(files: string[]): Promise<void> {
  for (const f of files) {
    const left = (state.pins.get(f) ?? 1) - 1;
    if (left > 0) {
      state.pins.set(f, left);
      continue;
    }
    state.pins.delete(f);
    if (state.retired.delete(f)) await fs.rm(f, { force: true });
  }
}

export async function retire(files: string[]): Promise<void> {
  await removeUnlessPinned(deferIfHeld(files));
}

async function removeUnlessPinned(files: string[]) {
  for (const f of files) {
    if (state.pins.has(f)) state.retired.add(f);
    else await fs.rm(f, { force: true });
  }
}

/**
 * Holds the store at `root` (its objects folder) until `release`: no file an object gave up is
 * removed meanwhile. In force from the moment this returns (it is synchronous).
 */
export function holdDeletions(root: string): { hold: Hold; release: () => Promise<void> } {
  const hold = beginHold(root);
  let released: Promise<void> | null = null;
  const release = () =>
    (released ??= (async () => {
      const { files, done } = await endHold(hold);
      await removeUnlessPinned(files);
      await done();
    })());
  return { hold, release };
}
