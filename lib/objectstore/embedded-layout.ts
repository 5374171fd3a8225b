import path from "node:path";
import { env } from "../env";
import { layout, type Layout } from "./disk/layout";

/** The embedded store's files: `${EASEL_DATA_DIR}/objects`. */
export function embeddedLayout(dataDir = env().dataDir): Layout {
  return layout(path.join(dataDir, "objects"));
}
