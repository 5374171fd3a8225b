"use client";

import { useRouter } from "next/navigation";
import { useEffect, type RefObject } from "react";

/** Whether a key press belongs to something that takes typing (a field, an editor, a media control). */
function typingInto(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT", "VIDEO", "AUDIO"].includes(target.tagName);
}

/** `/` anywhere on the page (outside a field) focuses the page's search or filter box. */
export function useSlashToFocus(field: RefObject<HTMLInputElement | null>) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "/" || e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typingInto(e.target)) return;
      if (!field.current || document.querySelector("dialog[open]")) return;
      e.preventDefault();
      field.current.focus();
      field.current.select();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [field]);
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
