// Copyright 2026 the understudy authors. MIT license.
// What the Chromium end-to-end tests of tests/websocket/ share (not a test
// file itself; Deno only, as they are): how Chromium is started here, and a
// page script bundled by the local esbuild.

/** Headless, and none of the background connections this closed network refuses. */
export const CHROMIUM_ARGS: string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
  "--disable-quic",
];

/** `entry` (relative to tests/websocket/) bundled for the page. */
export async function bundlePage(entry: string): Promise<string> {
  const esbuild =
    new URL("../../node_modules/.bin/esbuild", import.meta.url).pathname;
  const { success, stdout, stderr } = await new Deno.Command(esbuild, {
    args: [
      new URL(entry, import.meta.url).pathname,
      "--bundle",
      "--format=esm",
      "--target=chrome120",
      "--log-level=warning",
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!success) {
    throw new Error(`esbuild failed: ${new TextDecoder().decode(stderr)}`);
  }
  return new TextDecoder().decode(stdout);
}
