import fs from "node:fs";
import os from "node:os";
import path from "node:path";

// Each test file gets its own data dir for anything written to disk (object store files).
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-file-"));
process.env.EASEL_DATA_DIR = dir;
process.env.NEXT_TELEMETRY_DISABLED = "1";
// The suite's own output stays readable: warnings and errors of the code under test are printed,
// routine lines are not (EASEL_LOG_LEVEL=debug npm test shows them). Tests that read log lines
// capture them with a logger of their own (lib/log/capture.ts).
process.env.EASEL_LOG_LEVEL ??= "warn";
