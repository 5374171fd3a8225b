import fs from "node:fs";
import os from "node:os";
import path from "node:path";

// Each test file gets its own data dir for anything written to disk (object store files).
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-file-"));
process.env.EASEL_DATA_DIR = dir;
process.env.NEXT_TELEMETRY_DISABLED = "1";
