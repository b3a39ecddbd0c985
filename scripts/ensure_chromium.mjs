#!/usr/bin/env node
// Finds Chromium the way `npm test` does (scripts/lib/chromium.mjs) or
// installs it with apt-get when root or passwordless sudo allows; prints its
// path, or one line saying what to run and exits 1. Needs no node_modules, so
// .ci/run can call it before `npm ci` (the benchmarks drive Chromium too).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { ensureChromium } from "./lib/provision.mjs";
import { BUILD } from "./lib/util.mjs";

mkdirSync(join(BUILD, "logs"), { recursive: true });
const result = await ensureChromium((line) => console.log(line));
if (result.error) {
  console.error(`✖ ${result.error}`);
  process.exitCode = 1;
} else {
  console.log(result.path);
}
