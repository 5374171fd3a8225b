"use client";

import { useRouter } from "next/navigation";
import { useEffect, type RefObject } from "react";

/** Whether a key press belongs to something that takes typing (a field, an editor, a media control). */
function typingInto(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT", "VIDEO", "AUDIO"].includes(target.tagName);
}

/** A plain `/` press that is the page's to take: not typed into a field, not with a modifier, no dialog open. */
function isSlashShortcut(e: KeyboardEvent): boolean {
  return e.key === "/" && !e.defaultPrevented && !e.ctrlKey && !e.metaKey && !e.altKey && !typingInto(e.target) && !document.querySelector("dialog[open]");
}

/**
 * The path `/` sent the person to from a page without a search box (SlashToSearch): the box that
 * mounts there takes focus on arrival. Module state survives client-side navigation, which is how
 * the router moves between a workspace's pages.
 */
let focusOnArrival: string | null = null;

/** `/` anywhere on the page (outside a field) focuses the page's search or filter box. */
export function useSlashToFocus(field: RefObject<HTMLInputElement | null>) {
  useEffect(() => {
    if (focusOnArrival !== null && focusOnArrival === window.location.pathname) {
      focusOnArrival = null;
      field.current?.focus();
    }
    const onKey = (e: KeyboardEvent) => {
      if (!isSlashShortcut(e) || !field.current) return;
      e.preventDefault();
      field.current.focus();
      field.current.select();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [field]);
}

/**
 * On a workspace page without a search box of its own (the workspace's assets, an asset, settings),
 * `/` goes to the workspace's search with its box focused. A page that has one declares it with
 * `aria-keyshortcuts="/"` on the box, and its own handler (useSlashToFocus) takes the key, in
 * whichever order the two listeners run.
 */
export function SlashToSearch({ slug }: { slug: string }) {
  const router = useRouter();
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!isSlashShortcut(e) || document.querySelector('input[aria-keyshortcuts="/"]')) return;
      e.preventDefault();
      focusOnArrival = `/w/${encodeURIComponent(slug)}/search`;
      router.push(focusOnArrival);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [router, slug]);
  return null;
}

/**
 * Escape on an asset page goes back to its board (the first board it is on, else the workspace's
 * boards), unless something else owns Escape right then: an open dialog, a field, a fullscreen video.
 */
export function EscapeToBoard({ href }: { href: string }) {
  const router = useRouter();
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape" || e.defaultPrevented || typingInto(e.target)) return;
      if (document.querySelector("dialog[open]") || document.fullscreenElement) return;
      e.preventDefault();
      router.push(href);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [router, href]);
  return null;
}
