// Copyright 2026 the understudy authors. MIT license.
// The page script of e2e_browser.test.ts (not a test file itself), bundled
// with esbuild: the same in-process client, driven through `globalThis.e2e`.

import { InProcessClient } from "./_e2e_client.ts";

(globalThis as unknown as { e2e: InProcessClient }).e2e = new InProcessClient();
