// A node:test reporter (Node 20 API) that writes one JSON object: for each
// test file, how many leaf tests it reported. scripts/lib/runners/node.mjs
// uses it to catch files that reported nothing: files that register no
// tests, and files whose process stopped reporting and exited 0 (which the
// parent runner shows as a single passing test named after the file).
export default async function* fileReporter(source) {
  const perFile = {};
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const { name, file, details } = event.data;
    if (!file) continue;
    perFile[file] ??= { leaves: 0, fileLevel: null };
    if (name === file) {
      perFile[file].fileLevel = event.type === "test:pass" ? "pass" : "fail";
    } else if (details?.type !== "suite") perFile[file].leaves++;
  }
  yield JSON.stringify(perFile) + "\n";
}
