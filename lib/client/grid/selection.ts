/**
 * Multi-select over a paged list of assets. A selection is either a set of picked tokens, or
 * "everything on the board" minus the tokens taken out again: the second form covers pages the
 * browser has not loaded, and is turned into tokens by listing the board when a bulk action runs.
 */
export type Selection =
  | { mode: "some"; tokens: ReadonlySet<string>; anchor: string | null }
  | { mode: "all"; except: ReadonlySet<string>; anchor: string | null };

export const emptySelection = (): Selection => ({ mode: "some", tokens: new Set(), anchor: null });
export const selectAll = (): Selection => ({ mode: "all", except: new Set(), anchor: null });

export function isSelected(sel: Selection, token: string): boolean {
  return sel.mode === "some" ? sel.tokens.has(token) : !sel.except.has(token);
}

/** How many are selected, given the list's total (an "all" selection counts what it leaves out). */
export function selectedCount(sel: Selection, total: number): number {
  return sel.mode === "some" ? sel.tokens.size : Math.max(0, total - sel.except.size);
}

/** The selection with `tokens` switched on or off (one copy of the set, however many tokens). */
function withTokens(sel: Selection, tokens: readonly string[], on: boolean): Selection {
  if (sel.mode === "some") {
    const next = new Set(sel.tokens);
    for (const t of tokens) {
      if (on) next.add(t);
      else next.delete(t);
    }
    return { ...sel, tokens: next };
  }
  // "All except": switching a token on takes it out of the exceptions.
  const except = new Set(sel.except);
  for (const t of tokens) {
    if (on) except.delete(t);
    else except.add(t);
  }
  return { ...sel, except };
}

/** A plain click on a card's checkbox, or ctrl/cmd-click: flips one card and makes it the anchor. */
export function toggle(sel: Selection, token: string): Selection {
  return { ...withTokens(sel, [token], !isSelected(sel, token)), anchor: token };
}

/**
 * Shift-click: every card between the anchor and this one (in list order) takes the anchor's
 * state, as file managers do. Without an anchor (or when it is no longer listed) it acts as a toggle.
 */
export function extendTo(sel: Selection, token: string, order: readonly string[]): Selection {
  const from = sel.anchor === null ? -1 : order.indexOf(sel.anchor);
  const to = order.indexOf(token);
  if (from < 0 || to < 0) return toggle(sel, token);
  const on = isSelected(sel, order[from]);
  return { ...withTokens(sel, order.slice(Math.min(from, to), Math.max(from, to) + 1), on), anchor: sel.anchor };
}

/** The tokens a bulk action works on, in list order: the picked ones, or every listed token not taken out. */
export function resolveSelection(sel: Selection, everyToken: readonly string[]): string[] {
  if (sel.mode === "all") return everyToken.filter((t) => !sel.except.has(t));
  const listed = new Set(everyToken);
  return everyToken.filter((t) => sel.tokens.has(t)).concat([...sel.tokens].filter((t) => !listed.has(t)));
}

/** What stays selected after a bulk run: the items that failed, so the action can be tried again. */
export const onlyThese = (tokens: Iterable<string>): Selection => ({ mode: "some", tokens: new Set(tokens), anchor: null });
