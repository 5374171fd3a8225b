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

/** Uppy's Dashboard (drag and drop, progress bars, retry) on Easel's uploaders; browser-only. */
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
    return () => uppy.destroy();
    // The target object is read through `latest`; targetKey says when it really changed.
  }, [slug, storageKind, single, targetKey, note, height]);

  return <div ref={mount} className="easel-uploader" />;
}
