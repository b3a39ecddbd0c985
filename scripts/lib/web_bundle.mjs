// Bundling a test file for a web-platform runtime (headless Chromium,
// workerd): esbuild with `node:test`, `node:assert/strict` and `util` aliased
// to the shims in tests/_shims/, and any other `node:*` import rejected with
// a message that says how to opt the file out.
import { join } from "node:path";
import * as esbuild from "esbuild";
import { ROOT } from "./util.mjs";

const SHIMS = join(ROOT, "tests", "_shims");
export const SHIM = {
  "node:test": join(SHIMS, "node_test_browser.ts"),
  "node:assert/strict": join(SHIMS, "assert_strict_browser.ts"),
  "node:util": join(SHIMS, "util_browser.ts"),
  util: join(SHIMS, "util_browser.ts"),
};

const OPT_OUT = {
  browser: "// @runtimes deno node bun workerd",
  workerd: "// @runtimes deno node bun browser",
};

function optOutHint(testRel, runtime) {
  return `If ${testRel} (or what it imports) needs it, opt the file out of ` +
    `the ${runtime} run with a first line such as ` +
    `"${OPT_OUT[runtime]}" and a comment saying why (see tests/README.md).`;
}

/** The esbuild plugin that maps node:test & co. to the shims. */
export function shimPlugin(testRel, runtime) {
  return {
    name: `understudy-${runtime}-shims`,
    setup(build) {
      build.onResolve({ filter: /^(node:|util$)/ }, (args) => {
        const shim = SHIM[args.path];
        if (shim) return { path: shim };
        return {
          errors: [{
            text: `"${args.path}" is not available in the ${runtime} run. ` +
              optOutHint(testRel, runtime),
          }],
        };
      });
    },
  };
}

/** esbuild's errors as text, with the opt-out hint for Node built-ins. */
export function formatBuildError(error, file, runtime) {
  const text = error.errors?.length
    ? esbuild.formatMessagesSync(error.errors, { kind: "error", color: false })
      .join("\n")
    : String(error);
  if (/built into node|node:/.test(text) && !text.includes("@runtimes")) {
    return `${text}\n${optOutHint(file.rel, runtime)}`;
  }
  return text;
}

/**
 * Bundles `entry` (module source, resolved from the repository root) into
 * `outfile` as one ES module for the web platform.
 */
export async function bundleForWeb({ entry, sourcefile, outfile, file }, opts) {
  const { runtime, target, sourcemap = "inline", write = true } = opts;
  return await esbuild.build({
    absWorkingDir: ROOT,
    stdin: { contents: entry, resolveDir: ROOT, sourcefile, loader: "js" },
    outfile,
    bundle: true,
    platform: "browser",
    format: "esm",
    target,
    sourcemap,
    write,
    logLevel: "silent",
    plugins: [shimPlugin(file.rel, runtime)],
  });
}
