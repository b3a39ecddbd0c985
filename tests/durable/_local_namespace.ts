// Copyright 2026 the understudy authors. MIT license.
// A Durable Object namespace whose objects are ActorHosts in this process,
// for the tests that do not need workerd. Its stubs clone each message (as
// RPC serializes it) and can be told to fail, before the call reaches the
// object or after (the reply lost). Each object has a storage that outlives
// its host, as a Durable Object's does across evictions. Not a test file
// itself.

import { ActorHost, type ActorHostOptions } from "../../src/durable/mod.ts";

/** A Durable Object's storage, in memory: survives `evict()`. */
export class MemoryStorage {
  readonly map = new Map<string, unknown>();
  puts = 0;
  get(key: string): Promise<unknown> {
    return Promise.resolve(structuredClone(this.map.get(key)));
  }
  put(key: string, value: unknown): Promise<void> {
    this.puts++;
    this.map.set(key, structuredClone(value));
    return Promise.resolve();
  }
  deletes = 0;
  delete(key: string): Promise<boolean> {
    this.deletes++;
    return Promise.resolve(this.map.delete(key));
  }
  list(options: { prefix: string }): Promise<Map<string, unknown>> {
    const found = [...this.map].filter(([key]) =>
      key.startsWith(options.prefix)
    ).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Promise.resolve(structuredClone(new Map(found)));
  }
}

/** A namespace of hosts made on first call, as the platform makes objects. */
export class LocalNamespace {
  readonly hosts = new Map<string, ActorHost>();
  readonly storages = new Map<string, MemoryStorage>();
  /** Errors the next calls reject with before reaching the object, one each. */
  readonly failures: unknown[] = [];
  /** Errors the next calls reject with after the object took them (the reply lost), one each. */
  readonly lostReplies: unknown[] = [];
  /** Whether a stub that failed stays broken (as an evicted object's does). */
  brokenAfterFailure = false;
  calls = 0;
  /** Objects made (by name), the re-made ones after an eviction included. */
  readonly made: string[] = [];
  /** Makes the host for a name (set by `withHosts`). */
  make: ((name: string, ns: LocalNamespace) => ActorHost) | undefined;
  env: Record<string, unknown> = {};

  idFromName(name: string): string {
    return name;
  }

  /** The host of `name`, made if there is none. */
  host(name: string): ActorHost {
    let host = this.hosts.get(name);
    if (host === undefined) {
      if (this.make === undefined) throw new Error(`no object ${name}`);
      host = this.make(name, this);
      this.hosts.set(name, host);
      this.made.push(name);
    }
    return host;
  }

  storage(name: string): MemoryStorage {
    let storage = this.storages.get(name);
    if (storage === undefined) {
      storage = new MemoryStorage();
      this.storages.set(name, storage);
    }
    return storage;
  }

  /** The object is evicted: its host goes (nothing runs), its storage stays. */
  async evict(name: string): Promise<void> {
    const host = this.hosts.get(name);
    this.hosts.delete(name);
    // What the platform does leaves no code running; terminating the old
    // system is this process's stand-in for the memory going, and its
    // storage is put back as it was (a reset gives up the outbox, which
    // an eviction does not).
    const storage = this.storages.get(name);
    const kept = storage === undefined ? undefined : new Map(storage.map);
    await host?.reset();
    if (storage !== undefined && kept !== undefined) {
      storage.map.clear();
      for (const [key, value] of kept) storage.map.set(key, value);
    }
  }

  get(id: unknown) {
    const name = id as string;
    let broken = false;
    const attempt = <R>(run: () => R | Promise<R>): Promise<R> => {
      this.calls++;
      if (broken) {
        return Promise.reject(new Error("broken stub (injected)"));
      }
      const failure = this.failures.shift();
      if (failure !== undefined) {
        if (this.brokenAfterFailure) broken = true;
        return Promise.reject(failure);
      }
      const lost = this.lostReplies.shift();
      return Promise.resolve().then(run).then((value) => {
        if (lost !== undefined) throw lost;
        return structuredClone(value);
      });
    };
    return {
      understudyDeliver: (from: unknown, first: unknown, batch: unknown) =>
        attempt(() =>
          this.host(name).deliver(
            structuredClone(from),
            first,
            structuredClone(batch),
          )
        ),
      understudyAsk: (
        from: unknown,
        packet: unknown,
        timeoutMs: unknown,
        askId?: unknown,
      ) =>
        attempt(() =>
          this.host(name).ask(
            structuredClone(from),
            structuredClone(packet),
            timeoutMs,
            askId,
          )
        ),
      understudyVouch: (incarnation: unknown, binding: unknown, n: unknown) =>
        Promise.resolve().then(() =>
          this.host(name).vouch(incarnation, binding, n)
        ),
      understudyWatch: (from: unknown, path: unknown, watchId: unknown) =>
        attempt(() =>
          this.host(name).watched(structuredClone(from), path, watchId)
        ),
      understudyWatchCheck: (watchIds: unknown) =>
        attempt(() => this.host(name).watchCheck(structuredClone(watchIds))),
      understudyUnwatch: (watchId: unknown) =>
        attempt(() => this.host(name).unwatched(watchId)),
      understudyWatchEnded: (watchId: unknown, reason: unknown) =>
        attempt(() => this.host(name).watchEnded(watchId, reason)),
    };
  }
}

/**
 * A namespace bound as `binding` whose object `name` is made by
 * `new ActorHost(ctx, env, options(name))`, with a storage that outlives
 * evictions.
 */
export function localNamespace(
  binding: string,
  options: (name: string) => ActorHostOptions,
): LocalNamespace {
  const ns = new LocalNamespace();
  ns.env = { [binding]: ns };
  ns.make = (name) =>
    new ActorHost(
      { id: { name }, storage: ns.storage(name) },
      ns.env,
      { binding, ...options(name) },
    );
  return ns;
}
