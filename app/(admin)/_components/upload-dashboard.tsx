"use client";

import Dashboard from "@uppy/dashboard";
import "@uppy/core/css/style.min.css";
import "@uppy/dashboard/css/style.min.css";
import { useEffect, useRef } from "react";
import type { Asset, StorageKind } from "@/lib/client/types";
import { createEaselUppy } from "@/lib/client/uploads/create-uploader";
import type { UploadTarget } from "@/lib/client/uploads/tickets";

export type UploadDashboardProps = {
  slug: string;
  storageKind: StorageKind;
  target: UploadTarget;
  /** Identity of the target (board or asset): a new one builds a new Uppy. */
  targetKey: string;
  onAsset: (asset: Asset) => void;
  single?: boolean;
  note?: string;
  height?: number;
};

/**
 * The Dashboard's height while it lists files: its header and status bar, and one row of file
 * tiles whole (Uppy draws each 190-215 px high, preview above name and size, with its margins).
 * Less than this cuts every tile's name and size off in the list's scrolling box.
 */
const HEIGHT_WITH_FILES = 380;

/**
 * Uppy's Dashboard (drag and drop, progress bars, retry) on Easel's uploaders; browser-only.
 * `height` is the empty drop area's; it grows to HEIGHT_WITH_FILES while files are listed.
 */
export default function UploadDashboard({ slug, storageKind, target, targetKey, onAsset, single, note, height = 320 }: UploadDashboardProps) {
  const mount = useRef<HTMLDivElement>(null);
  const latest = useRef({ onAsset, target });
  // Uppy calls back long after the render that made it: it reads the latest props through this
  // ref, updated after each render (declared first, so it runs before the effect below).
  useEffect(() => {
    latest.current = { onAsset, target };
  });

  useEffect(() => {
    if (!mount.current) return;
    const uppy = createEaselUppy({ slug, storageKind, single, targetKey, target: latest.current.target, onAsset: (a) => latest.current.onAsset(a) });
    uppy.use(Dashboard, {
      inline: true,
      target: mount.current,
      height,
      width: "100%",
      note: note ?? null,
      proudlyDisplayPoweredByUppy: false,
      showRemoveButtonAfterComplete: true,
      doneButtonHandler: () => uppy.clear(),
      theme: "auto",
    });
    const dashboard = uppy.getPlugin("Dashboard");
    let shown = height;
    const fitFiles = () => {
      const wanted = uppy.getFiles().length > 0 ? Math.max(height, HEIGHT_WITH_FILES) : height;
      if (wanted === shown) return;
      shown = wanted;
      dashboard?.setOptions({ height: wanted });
    };
    uppy.on("state-update", fitFiles);
    return () => {
      uppy.off("state-update", fitFiles);
      uppy.destroy();
    };
    // The target object is read through `latest`; targetKey says when it really changed.
  }, [slug, storageKind, single, targetKey, note, height]);

  return <div ref={mount} className="easel-uploader" />;
}
