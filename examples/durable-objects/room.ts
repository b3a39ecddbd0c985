// Copyright 2026 the understudy authors. MIT license.

/**
 * The room's actors: `Room`, which keeps the shared list of words in the
 * object's storage, and `Lookup`, which asks the flaky upstream for each
 * word's definition under a durable BackoffSupervisor. Plain actors: the
 * Durable Object (`room_object.ts`) hosts them, and `tests/durable/`
 * drives them in workerd.
 *
 * @module
 */

import { Actor, type ActorRef, BackoffSupervisor, Props } from "../../mod.ts";
import {
  durableBackoff,
  DurableState,
  type DurableStore,
  SocketMessage,
} from "../../src/durable/mod.ts";

/** One word of the room's list. */
export interface Item {
  /** Its place in the list, from 1. */
  readonly n: number;
  readonly word: string;
  /** Who added it (the page's name). */
  readonly by: string;
  /** From the upstream; absent while the lookup is under way. */
  readonly definition?: string;
}

/** What a page asks of the room: the text of a `SocketMessage`. */
export type Command = { op: "add"; word: string; by: string };

/** What the room's actor takes. */
export type RoomMessage =
  | SocketMessage
  | { type: "snapshot" }
  | { type: "join" }
  | { type: "defined"; n: number; definition: string }
  | { type: "lookup-failed"; n: number; word: string };

/** What `Lookup` takes. */
export interface LookupRequest {
  readonly n: number;
  readonly word: string;
}

/** A frame the room sends every page. */
export type RoomFrame =
  | { type: "items"; items: Item[] }
  | { type: "item"; item: Item };

/** Calls the upstream: the definition of `word`, or a throw. */
export type Upstream = (word: string) => Promise<string>;

/** Sends a frame to every page connected to the room. */
export type Broadcast = (frame: RoomFrame) => void;

/** The supervisor's backoff: 100 ms, doubling to 2 s, ±20%. */
export const LOOKUP_BACKOFF = {
  minBackoff: 100,
  maxBackoff: 2_000,
  randomFactor: 0.2,
} as const;

/**
 * Looks one word up at a time. A failed call tells the room (its
 * supervisor's parent, as a BackoffSupervisor passes on what a child tells
 * its parent) to ask again, then throws: the supervisor respawns it after
 * a backoff, and what was asked meanwhile waits in its durable stash. A
 * call that succeeds sets the supervisor's restart count back to 0
 * (`resetCounter: "manual"`), so consecutive failures back off longer and
 * longer, and the first success ends that.
 */
export class Lookup extends Actor<LookupRequest> {
  /**
   * @param upstream Calls the upstream.
   * @param needed Whether word `n` still has no definition: after an
   * eviction the room asks again for every such word, and a copy of one
   * the stash already held is then skipped, not called twice.
   */
  constructor(
    readonly upstream: Upstream,
    readonly needed: (n: number) => boolean,
  ) {
    super();
  }

  async onReceive({ n, word }: LookupRequest): Promise<void> {
    if (!this.needed(n)) return;
    let definition: string;
    try {
      definition = await this.upstream(word);
    } catch (error) {
      this.context.parent.tell({ type: "lookup-failed", n, word }, this.self);
      throw error;
    }
    this.context.parent.tell({ type: "defined", n, definition }, this.self);
    // A success, not up-time, is what says the upstream is back.
    this.context.parent.tell(BackoffSupervisor.Reset);
  }
}

/**
 * The shared list. Every change is one write of the list to the object's
 * storage, in the turn that makes it: the platform's output gate holds
 * what the object sends afterwards (the page's acknowledgement) until the
 * write is durable.
 */
export class Room extends Actor<RoomMessage> {
  readonly #items: DurableState<Item[]>;
  #lookups!: ActorRef<LookupRequest>;

  constructor(
    readonly store: DurableStore,
    readonly upstream: Upstream,
    readonly broadcast: Broadcast,
  ) {
    super();
    this.#items = new DurableState<Item[]>(store, "room/items", []);
  }

  override preStart(): void {
    this.#lookups = this.context.actorOf(
      BackoffSupervisor.props({
        childProps: Props.create(() =>
          new Lookup(this.upstream, (n) => this.#needed(n))
        ),
        childName: "lookup",
        ...LOOKUP_BACKOFF,
        resetCounter: "manual",
        // Its restart count, stash and pending respawn outlive an eviction.
        durable: durableBackoff(this.store, "room/lookups"),
      }),
      "lookups",
    ) as ActorRef<LookupRequest>;
    // A lookup in flight when the object was evicted went with its memory:
    // ask again for every word still without a definition (the room keeps
    // the first answer; a word may so be looked up twice).
    for (const item of this.#items.value) {
      if (item.definition === undefined) {
        this.#lookups.tell({ n: item.n, word: item.word });
      }
    }
  }

  #needed(n: number): boolean {
    const item = this.#items.value[n - 1];
    return item !== undefined && item.definition === undefined;
  }

  onReceive(message: RoomMessage): void {
    if (message instanceof SocketMessage) {
      // A page's command, once: the socket server stores the command's id
      // as handled at the end of this turn, with what the turn wrote, and
      // only then acknowledges it to the page.
      const command = JSON.parse(String(message.data)) as Command;
      const items = this.#items.value;
      const item: Item = {
        n: items.length + 1,
        word: command.word,
        by: command.by,
      };
      this.#items.set([...items, item]);
      this.#lookups.tell({ n: item.n, word: item.word });
      this.broadcast({ type: "item", item });
      return;
    }
    switch (message.type) {
      case "defined": {
        const items = this.#items.value;
        const item = items[message.n - 1];
        if (item === undefined || item.definition !== undefined) break;
        const defined = { ...item, definition: message.definition };
        this.#items.set(items.map((it) => it === item ? defined : it));
        this.broadcast({ type: "item", item: defined });
        break;
      }
      case "lookup-failed":
        // Unless a copy of that lookup already got the answer: asked
        // again, stashed by the supervisor until its next child is up.
        if (this.#needed(message.n)) {
          this.#lookups.tell({ n: message.n, word: message.word });
        }
        break;
      case "snapshot":
        this.sender?.tell({ type: "items", items: this.#items.value });
        break;
      case "join":
        // A page's connection (the sender): the whole list, as text.
        this.sender?.tell(
          JSON.stringify({ type: "items", items: this.#items.value }),
        );
        break;
    }
  }
}
