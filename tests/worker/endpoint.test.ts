// Copyright 2026 the understudy authors. MIT license.
// What `create` may return: a Worker-like object (an endpoint with
// `terminate`) or `{ endpoint, terminate }`; anything else is rejected with
// the one message shape, naming what `create()` returned.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { toHandle } from "../../src/worker/endpoint.ts";

/** The smallest endpoint: postMessage and addEventListener. */
function endpoint() {
  return {
    postMessage(_message: unknown) {},
    addEventListener(_type: string, _listener: unknown) {},
    removeEventListener(_type: string, _listener: unknown) {},
  };
}

describe("toHandle (what workerProps' create returns)", () => {
  it("takes a Worker-like object and terminates it through its own terminate()", () => {
    let terminated = 0;
    const worker = { ...endpoint(), terminate: () => terminated++ };
    const handle = toHandle(worker);
    assert.equal(handle.endpoint, worker);
    handle.terminate();
    assert.equal(terminated, 1);
  });

  it("takes { endpoint, terminate } as given", () => {
    const given = { endpoint: endpoint(), terminate: () => {} };
    assert.equal(toHandle(given), given);
  });

  it("rejects anything else, naming what create() returned", () => {
    for (
      const [bad, shown] of [
        [undefined, "undefined"],
        [endpoint(), "an object (Object)"],
        [{ endpoint: {}, terminate: () => {} }, "an object (Object)"],
        ["worker.js", '"worker.js"'],
      ] as const
    ) {
      assert.throws(() => toHandle(bad), {
        name: "TypeError",
        message:
          `Cannot start worker: "create()" must be a Worker or { endpoint, terminate } (got ${shown})`,
      });
    }
  });
});
