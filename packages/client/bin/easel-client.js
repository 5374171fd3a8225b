#!/usr/bin/env node
// The package runs from its TypeScript source through tsx (a dependency), so a checkout needs no
// build step before `npx easel-client` works (docs/client.md, "Why TypeScript source").
import { register } from "tsx/esm/api";

register();
await import("../src/cli/main.ts");
