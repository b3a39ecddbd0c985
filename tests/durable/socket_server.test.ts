// Copyright 2026 the understudy authors. MIT license.
// The Durable Object's socket server without the platform: the client (the
// supervised socket with durableSocketAck(), on the websocket tests' fake
// network) and a SocketServer on a fake object state (accepted sockets with
// attachments, a Map for storage), both on one ManualScheduler. An
// "eviction" freezes the old object (its writes and frames go nowhere, as
// nothing runs in an evicted object) and builds a new one on the same
// storage with no sockets; a "hibernation" builds a new one on the same
// storage with the same sockets, which their attachments name. The real
// runtime is in socket_workerd.test.ts.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  type ActorRef,
  ActorSystem,
  BackoffSupervisor,
  DeadLetter,
  Props,
  UndeliveredError,
} from "../../mod.ts";
import { ManualScheduler, seededRandom } from "../../src/testing/mod.ts";
import {
  type HibernatableWebSocketLike,
  type SocketMessage,
  SocketServer,
} from "../../src/durable/mod.ts";
import {
  durableSocketAck,
  Send,
  type Sent,
  WebSocketMessageDropped,
  websocketProps,
} from "../../src/websocket/mod.ts";
import { parseFrame, refusalFrame } from "../../src/durable/socket_frames.ts";
import {
  FakeNetwork,
  type FakeWebSocket,
} from "../websocket/_fake_websocket.ts";

/** What the target did: every message, in the order its turns ran. */
type Log = [client: string, id: number, data: string][];

/** The object's actor: records each message in storage, in its turn, and answers it. */
class Recorder extends Actor<SocketMessage> {
  constructor(readonly store: Map<string, unknown>) {
    super();
  }
  onReceive(message: SocketMessage): void {
    const log = (this.store.get("log") ?? []) as Log;
    this.store.set("log", [
      ...log,
      [message.clientId, message.id, String(message.data)],
    ]);
    message.connection.tell(`done ${String(message.data)}`);
  }
}

/** The server's end of one client socket, on the fake network: the platform's, outliving the object's lives. */
class ServerEnd {
  attachment: unknown = null;
  open = true;
  /** Its frames to the client are lost. */
  muted = false;
  constructor(readonly client: FakeWebSocket, readonly world: World) {}
  close(code?: number, reason?: string): void {
    if (!this.open) return;
    this.open = false;
    this.world.scheduler.setTimeout(
      () =>
        this.client.end({
          code: code ?? 1005,
          reason: reason ?? "",
          wasClean: true,
        }),
      0,
    );
  }
}

/** A life's view of a socket (a new object after each wake, as in workerd): a life that is over says and does nothing. */
class LifeSocket implements HibernatableWebSocketLike {
  constructor(readonly end: ServerEnd, readonly life: number) {}
  get #current(): boolean {
    return this.end.world.lives.length - 1 === this.life;
  }
  send(data: string | ArrayBuffer | ArrayBufferView): void {
    if (!this.end.open) throw new Error("closed");
    if (!this.#current || this.end.muted) return;
    this.end.world.scheduler.setTimeout(() => this.end.client.message(data), 0);
  }
  close(code?: number, reason?: string): void {
    if (this.#current) this.end.close(code, reason);
  }
  serializeAttachment(value: unknown): void {
    if (this.#current) this.end.attachment = structuredClone(value);
  }
  deserializeAttachment(): unknown {
    return structuredClone(this.end.attachment);
  }
}

/** One life of the object: its system, its server, its views of the sockets. */
interface Life {
  system: ActorSystem;
  server: SocketServer;
  sockets: Map<ServerEnd, LifeSocket>;
}

/** The client, the network between, and the object's lives on one storage. */
class World {
  readonly scheduler = new ManualScheduler();
  readonly network = new FakeNetwork(this.scheduler);
  readonly storage = new Map<string, unknown>();
  readonly clientSystem = ActorSystem.create("client", {
    scheduler: this.scheduler,
    logLevel: "off",
  });
  readonly ends = new Map<FakeWebSocket, ServerEnd>();
  readonly lives: Life[] = [];
  readonly serverDeadLetters: DeadLetter[] = [];
  /** Called after each frame the server was given (before its target's turn). */
  afterMessage: ((data: unknown) => void) | undefined;

  /** `target` makes each life's target (a Recorder by default). */
  constructor(
    readonly target: (
      system: ActorSystem,
      store: Map<string, unknown>,
    ) => ActorRef<SocketMessage> = (system, store) =>
      system.actorOf(Props.create(() => new Recorder(store)), "room"),
  ) {
    this.network.answer = "hang";
    this.network.onSend = (socket, data) => {
      const end = this.ends.get(socket);
      this.scheduler.setTimeout(() => {
        const view = end && this.life.sockets.get(end);
        if (end?.open && view) {
          this.life.server.webSocketMessage(view, data as string | ArrayBuffer);
          this.afterMessage?.(data);
        }
      }, 0);
    };
    this.#start(false);
  }

  get life(): Life {
    return this.lives.at(-1)!;
  }

  /** A new life of the object on the same storage; with `keepSockets`, the open ones are still accepted. */
  #start(keepSockets: boolean): Life {
    const index = this.lives.length;
    const system = ActorSystem.create(`object-${index}`, {
      scheduler: this.scheduler,
      logLevel: "off",
    });
    system.eventStream.subscribe(
      DeadLetter,
      (dead) => this.serverDeadLetters.push(dead),
    );
    // Writes of a life that is over go nowhere.
    const storage = this.storage;
    const lives = this.lives;
    const view = {
      get: (key: string) => structuredClone(storage.get(key)),
      set: (key: string, value: unknown) => {
        if (lives.length - 1 === index) {
          storage.set(key, structuredClone(value));
        }
        return view;
      },
      delete: (key: string) => storage.delete(key),
    } as unknown as Map<string, unknown>;
    const target = this.target(system, view);
    const sockets = new Map<ServerEnd, LifeSocket>();
    if (keepSockets) {
      for (const end of this.ends.values()) {
        if (end.open) sockets.set(end, new LifeSocket(end, index));
      }
    }
    const ctx = {
      acceptWebSocket: (ws: HibernatableWebSocketLike) =>
        void sockets.set((ws as LifeSocket).end, ws as LifeSocket),
      getWebSockets: () => [...sockets.values()].filter((s) => s.end.open),
    };
    // The life is current before its server takes back its sockets.
    const life: Life = {
      system,
      server: undefined as unknown as SocketServer,
      sockets,
    };
    this.lives.push(life);
    life.server = new SocketServer(ctx, { system, store: view, target });
    return life;
  }

  /** Accepts the sockets the client opened since, and lets time pass. */
  async tick(ms = 0): Promise<void> {
    this.#acceptNew();
    await this.scheduler.timePasses(0);
    this.#acceptNew();
    await this.scheduler.timePasses(ms);
    this.#acceptNew();
  }

  #acceptNew(): void {
    for (const socket of this.network.sockets) {
      if (socket.readyState !== 0 || this.ends.has(socket)) continue;
      socket.accept();
      const end = new ServerEnd(socket, this);
      this.ends.set(socket, end);
      const client = new URL(socket.url).searchParams.get("client")!;
      this.life.server.adopt(
        new LifeSocket(end, this.lives.length - 1),
        client,
      );
    }
  }

  /**
   * The object is evicted: nothing it does lands any more, its mailbox is
   * lost; its sockets drop, or (`keepSockets`, as workerd's ctx.abort()
   * does with hibernatable sockets) stay open for its next life.
   */
  evict(keepSockets: boolean): void {
    if (!keepSockets) {
      for (const end of this.ends.values()) {
        if (!end.open) continue;
        end.open = false;
        end.client.end({ code: 1006, reason: "", wasClean: false });
      }
    }
    this.#start(keepSockets);
  }

  /** The object hibernates (idle: nothing in its mailbox): its memory goes, its sockets stay. */
  hibernate(): void {
    this.#start(true);
  }

  /** The client loses its connection (the server hears of it). */
  drop(): void {
    for (const end of this.ends.values()) {
      if (!end.open) continue;
      end.open = false;
      end.client.end({ code: 1006, reason: "", wasClean: false });
      const view = this.life.sockets.get(end);
      if (view) this.life.server.webSocketClose(view, 1006, "", false);
    }
  }

  /** The first socket's end (the platform's). */
  get firstEnd(): ServerEnd {
    return [...this.ends.values()][0];
  }

  connect(clientId: string): ActorRef<unknown> {
    return this.clientSystem.actorOf(websocketProps({
      url: `ws://object.test/room?client=${clientId}`,
      page: false,
      WebSocket: this.network.WebSocket,
      ack: durableSocketAck(),
      policy: { delayFor: () => 50 },
      minUptimeMs: 0,
    }));
  }

  get log(): Log {
    return (this.storage.get("log") ?? []) as Log;
  }

  async done(): Promise<void> {
    const ending = [
      this.clientSystem.terminate(),
      ...this.lives.map((life) => life.system.terminate()),
    ];
    await this.scheduler.timePasses(0);
    await Promise.all(ending);
  }
}

/** Asks for each text; the replies by text, as they come (a second one is recorded too). */
function askAll(
  connection: ActorRef<unknown>,
  texts: string[],
  replies: Map<string, Sent[]>,
): void {
  for (const text of texts) {
    connection.ask<Sent>(new Send(text), 600_000).then(
      (sent) => replies.set(text, [...(replies.get(text) ?? []), sent]),
      () => {},
    );
  }
}

describe("socket server: the frames", () => {
  it("the client's frames are what the server reads, text and binary", () => {
    const { encode, decodeAck, decodeResume } = durableSocketAck();
    assert.deepEqual(parseFrame(encode(7, "a:b")), { id: 7, data: "a:b" });
    const binary = parseFrame(encode(2 ** 40, new Uint8Array([1, 2, 3])));
    assert.equal(binary?.id, 2 ** 40);
    assert.deepEqual([...new Uint8Array(binary!.data as ArrayBuffer)], [
      1,
      2,
      3,
    ]);
    assert.equal(parseFrame("ping"), undefined);
    assert.equal(parseFrame("0:x"), undefined);
    assert.equal(parseFrame("1x:y"), undefined);
    assert.throws(() => encode(1, new Blob(["x"])), /cannot frame a Blob/);
    // The server's frames, as the client reads them.
    assert.equal(decodeAck("\u000612"), 12);
    assert.equal(decodeAck("\u0006"), 0); // the heartbeat's answer: none of ours
    assert.equal(decodeAck("\u0006r5"), 0);
    assert.equal(decodeAck("done"), undefined);
    assert.equal(decodeResume!("\u0006r5"), 5);
    assert.equal(decodeResume!("\u00065"), undefined);
  });

  it("the server's refusals are what the client reads; other frames are none", () => {
    const { decodeAck, decodeRefusal } = durableSocketAck();
    const reason = "mailbox full (capacity 1): ".padEnd(300, "x");
    const frame = refusalFrame(7, reason);
    assert.deepEqual(decodeRefusal!(frame), {
      id: 7,
      reason: reason.slice(0, 200),
    });
    assert.deepEqual(decodeRefusal!("\u0006x2:"), { id: 2, reason: "" });
    assert.deepEqual(decodeRefusal!("\u0006x3:a:b"), { id: 3, reason: "a:b" });
    for (
      const bad of [
        "\u00067",
        "\u0006r7",
        "\u0006x0:zero",
        "\u0006x:no id",
        "\u0006x7",
        "\u0006x-1:negative",
        "\u0006x1e3:exponent",
        `\u0006x${"9".repeat(20)}:unsafe`,
        "x7:no control",
        "done",
        new ArrayBuffer(8),
        undefined,
      ]
    ) {
      assert.equal(decodeRefusal!(bad), undefined, String(bad));
    }
    // A client without decodeRefusal swallows a refusal: none of its ids.
    assert.equal(decodeAck(frame), 0);
  });
});

describe("socket server: effectively once with durableSocketAck()", () => {
  it("acknowledges after the target's turn, and the mark is in storage and the attachment", async () => {
    const world = new World();
    try {
      const connection = world.connect("tab-1");
      await world.tick(1);
      const replies = new Map<string, Sent[]>();
      askAll(connection, ["a", "b", "c"], replies);
      await world.tick(0);
      await world.tick(0);
      assert.deepEqual(world.log, [
        ["tab-1", 1, "a"],
        ["tab-1", 2, "b"],
        ["tab-1", 3, "c"],
      ]);
      assert.deepEqual([...replies.keys()], ["a", "b", "c"]);
      assert.ok([...replies.values()].flat().every((s) => s.acknowledged));
      assert.equal(world.storage.get("understudy/socket/tab-1"), 3);
      assert.deepEqual(world.firstEnd.attachment, {
        client: "tab-1",
        handled: 3,
        delivered: 3,
      });
      assert.equal(world.life.server.handled("tab-1"), 3);
      assert.deepEqual(world.life.server.clients, ["tab-1"]);
      // The target's answers reached the client as messages.
      assert.deepEqual(
        world.network.last.sent.length,
        3,
        "nothing sent twice",
      );
    } finally {
      await world.done();
    }
  });

  it("a new connection actor with the same client id goes on after the server's mark", async () => {
    const world = new World();
    try {
      world.storage.set("understudy/socket/tab-1", 41);
      const connection = world.connect("tab-1");
      await world.tick(1);
      const replies = new Map<string, Sent[]>();
      askAll(connection, ["x"], replies);
      await world.tick(0);
      await world.tick(0);
      assert.deepEqual(world.network.last.sent, ["42:x"]);
      assert.deepEqual(world.log, [["tab-1", 42, "x"]]);
      assert.equal(replies.get("x")?.length, 1);
    } finally {
      await world.done();
    }
  });

  it("writes nothing before the server's word, and fails the attempt if it never comes", async () => {
    const scheduler = new ManualScheduler();
    const network = new FakeNetwork(scheduler);
    const system = ActorSystem.create("client", { scheduler, logLevel: "off" });
    try {
      const connection = system.actorOf(websocketProps({
        url: "ws://object.test/room?client=c",
        page: false,
        WebSocket: network.WebSocket,
        ack: durableSocketAck(),
        connectionTimeoutMs: 1_000,
        policy: { delayFor: () => 10_000 },
      }));
      connection.tell(new Send("a"));
      await scheduler.timePasses(1);
      const socket = network.last;
      assert.equal(socket.readyState, 1);
      socket.message("hello"); // not the word: nothing counts yet
      await scheduler.timePasses(500);
      assert.deepEqual(socket.sent, []);
      await scheduler.timePasses(600);
      assert.equal(socket.readyState, 3, "the connection timeout ended it");
      assert.deepEqual(socket.sent, []);
    } finally {
      const ending = system.terminate();
      await scheduler.timePasses(0);
      await ending;
    }
  });

  it("after a lost connection, what the server handled is acknowledged by its word, not sent again", async () => {
    const world = new World();
    try {
      const connection = world.connect("tab-1");
      await world.tick(1);
      const replies = new Map<string, Sent[]>();
      // The acknowledgements of a and b are lost with the connection.
      world.firstEnd.muted = true;
      askAll(connection, ["a", "b"], replies);
      await world.tick(0);
      await world.tick(0);
      assert.equal(replies.size, 0);
      assert.equal(world.log.length, 2);
      world.drop();
      askAll(connection, ["c"], replies);
      await world.tick(60);
      await world.tick(0);
      await world.tick(0);
      assert.deepEqual(world.network.last.sent, ["3:c"]);
      assert.deepEqual(world.log.map((e) => e[2]), ["a", "b", "c"]);
      assert.deepEqual([...replies.keys()], ["a", "b", "c"]);
      assert.ok([...replies.values()].every((s) => s.length === 1));
    } finally {
      await world.done();
    }
  });

  it("a hibernated object knows its sockets by their attachments", async () => {
    const world = new World();
    try {
      const connection = world.connect("tab-1");
      await world.tick(1);
      const replies = new Map<string, Sent[]>();
      askAll(connection, ["a"], replies);
      await world.tick(0);
      await world.tick(0);
      world.hibernate();
      askAll(connection, ["b"], replies);
      await world.tick(0);
      await world.tick(0);
      assert.deepEqual(world.log.map((e) => e[1]), [1, 2]);
      assert.equal(replies.get("b")?.[0].acknowledged, true);
      assert.deepEqual(world.life.server.clients, ["tab-1"]);
      // Its connection's ref reaches the same socket.
      world.life.server.connection("tab-1").tell("after the wake");
      await world.tick(0);
      assert.equal(world.network.sockets.length, 1, "no reconnect was needed");
    } finally {
      await world.done();
    }
  });

  it("drops a copy that comes while the first is still in the target's mailbox, and acknowledges once it is processed", async () => {
    const world = new World();
    try {
      world.connect("tab-1");
      await world.tick(1);
      const end = world.life.sockets.get(world.firstEnd)!;
      const acks: unknown[] = [];
      end.end.client.onmessage = ({ data }: { data: unknown }) =>
        void acks.push(data);
      // Both before the target's turn runs.
      world.life.server.webSocketMessage(end, "1:a");
      world.life.server.webSocketMessage(end, "1:a");
      await world.tick(0);
      assert.deepEqual(world.log, [["tab-1", 1, "a"]]);
      assert.deepEqual(acks.filter((a) => a === "\u00061"), ["\u00061"]);
      // A copy after it was processed is acknowledged again, not processed.
      world.life.server.webSocketMessage(end, "1:a");
      await world.tick(0);
      assert.deepEqual(world.log, [["tab-1", 1, "a"]]);
      assert.equal(acks.filter((a) => a === "\u00061").length, 2);
    } finally {
      await world.done();
    }
  });

  it("an object evicted with messages in its mailbox and its sockets kept closes them in its next life: the client sends them again", async () => {
    const world = new World();
    try {
      const connection = world.connect("tab-1");
      await world.tick(1);
      const replies = new Map<string, Sent[]>();
      askAll(connection, ["a"], replies);
      await world.tick(0);
      await world.tick(0);
      // Evicted after it was given c, before its actor's turn for it.
      world.afterMessage = (data) => {
        if (data === "3:c") {
          world.afterMessage = undefined;
          world.evict(true);
        }
      };
      askAll(connection, ["b", "c"], replies);
      await world.tick(0);
      assert.deepEqual(world.log.map((e) => e[2]), ["a", "b"]);
      assert.equal(world.firstEnd.open, false, "closed by the next life");
      await world.tick(60);
      await world.tick(0);
      await world.tick(0);
      assert.deepEqual(world.log.map((e) => e[2]), ["a", "b", "c"]);
      assert.deepEqual([...replies.keys()], ["a", "b", "c"]);
      assert.equal(world.network.sockets.length, 2);
    } finally {
      await world.done();
    }
  });

  it("refuses what it cannot send, with dead letters", async () => {
    const world = new World();
    try {
      const ref = world.life.server.connection("nobody");
      ref.tell("hi");
      ref.tell("\u0006 looks like an ack");
      ref.tell(42 as never);
      await world.tick(0);
      assert.deepEqual(world.serverDeadLetters.map((d) => d.reason), [
        "client nobody is not connected",
        "text starting with U+0006 is the library's (the client would take it for an acknowledgement)",
        "not text or binary data: 42",
      ]);
    } finally {
      await world.done();
    }
  });

  it("sets the platform's heartbeat answer, and answers a ping that reaches it", async () => {
    const pairs: unknown[] = [];
    const global = globalThis as { WebSocketRequestResponsePair?: unknown };
    const platform = global.WebSocketRequestResponsePair; // workerd has one
    global.WebSocketRequestResponsePair = class {
      constructor(readonly request: string, readonly response: string) {}
    };
    const system = ActorSystem.create("o", { logLevel: "off" });
    try {
      const ctx = {
        acceptWebSocket: () => {},
        getWebSockets: () => [],
        setWebSocketAutoResponse: (pair?: unknown) => void pairs.push(pair),
      };
      const target = system.actorOf(
        Props.create(() => new Recorder(new Map())),
      );
      const server = new SocketServer(ctx, {
        system,
        store: new Map(),
        target,
      });
      new SocketServer(ctx, {
        system,
        store: new Map(),
        target,
        heartbeat: { ping: "hb", pong: "\u0006hb" },
      });
      new SocketServer(ctx, {
        system,
        store: new Map(),
        target,
        heartbeat: false,
      });
      assert.deepEqual(JSON.parse(JSON.stringify(pairs)), [
        { request: "ping", response: "\u0006" },
        { request: "hb", response: "\u0006hb" },
        null,
      ]);
      const sent: unknown[] = [];
      server.webSocketMessage(
        {
          send: (data) => void sent.push(data),
          close: () => {},
          serializeAttachment: () => {},
          deserializeAttachment: () => null,
        },
        "ping",
      );
      assert.deepEqual(sent, ["\u0006"]);
      // The client swallows the answer.
      assert.equal(durableSocketAck().decodeAck("\u0006"), 0);
    } finally {
      if (platform === undefined) delete global.WebSocketRequestResponsePair;
      else global.WebSocketRequestResponsePair = platform;
      await system.terminate();
    }
  });

  it("keeps one socket per client: a newer one replaces the older, whose frames then count for nothing", async () => {
    const system = ActorSystem.create("o", { logLevel: "off" });
    try {
      const store = new Map<string, unknown>();
      const ctx = { acceptWebSocket: () => {}, getWebSockets: () => [] };
      const server = new SocketServer(ctx, {
        system,
        store,
        target: system.actorOf(Props.create(() => new Recorder(store))),
      });
      const socket = () => {
        let attachment: unknown = null;
        const socket = {
          sent: [] as unknown[],
          closed: [] as unknown[],
          send: (data: unknown) => void socket.sent.push(data),
          close: (code?: number) => void socket.closed.push(code),
          serializeAttachment: (v: unknown) => void (attachment = v),
          deserializeAttachment: () => attachment,
        };
        return socket;
      };
      const older = socket();
      const newer = socket();
      server.adopt(older, "tab-1");
      server.adopt(newer, "tab-1");
      assert.deepEqual(older.closed, [4000]);
      server.webSocketMessage(older, "1:late");
      server.webSocketMessage(newer, "1:kept");
      await new Promise((resolve) => setTimeout(resolve, 0));
      assert.deepEqual(store.get("log"), [["tab-1", 1, "kept"]]);
      assert.deepEqual(newer.sent, ["\u0006r0", "\u00061", "done kept"]);
      assert.deepEqual(server.clients, ["tab-1"]);
    } finally {
      await system.terminate();
    }
  });

  it("checks its options at the call", () => {
    const system = ActorSystem.create("o", { logLevel: "off" });
    const ctx = { acceptWebSocket: () => {}, getWebSockets: () => [] };
    const target = system.actorOf(Props.create(() => new Recorder(new Map())));
    assert.throws(
      () => new SocketServer({} as never, { system, store: new Map(), target }),
      /ctx/,
    );
    assert.throws(
      () => new SocketServer(ctx, { system, store: {} as never, target }),
      TypeError,
    );
    assert.throws(
      () =>
        new SocketServer(ctx, {
          system,
          store: new Map(),
          target: {} as never,
        }),
      /target/,
    );
    assert.throws(
      () =>
        new SocketServer(ctx, {
          system,
          store: new Map(),
          target,
          heartbeat: { ping: "", pong: "x" },
        }),
      /heartbeat/,
    );
    assert.throws(
      () =>
        new SocketServer(ctx, {
          system,
          store: new Map(),
          target,
          heartbeat: { ping: "1:x", pong: "\u0006" },
        }),
      /heartbeat\.ping/,
    );
    const server = new SocketServer(ctx, { system, store: new Map(), target });
    assert.throws(() => server.adopt({} as never, ""), /clientId/);
    // The client's side: decodeResume is a function, if given.
    assert.throws(
      () =>
        websocketProps({
          url: "ws://o.test/",
          page: false,
          ack: { ...durableSocketAck(), decodeResume: 5 as never },
        }),
      /ack\.decodeResume/,
    );
    const refused = server.accept(new Request("http://o.test/?client=a"));
    assert.equal(refused.status, 426);
    // (A browser's Request drops an Upgrade header: a plain Headers keeps it.)
    const noId = server.accept(
      {
        url: "http://o.test/",
        headers: new Headers({ Upgrade: "websocket" }),
      } as unknown as Request,
    );
    assert.equal(noId.status, 400);
    return system.terminate();
  });
});

/** A server's end of a socket with no client behind it: what it was sent, how it was closed. */
class PlainSocket implements HibernatableWebSocketLike {
  attachment: unknown = null;
  sent: unknown[] = [];
  closed: number | undefined;
  send(data: string | ArrayBuffer | ArrayBufferView): void {
    if (this.closed !== undefined) throw new Error("closed");
    this.sent.push(data);
  }
  close(code?: number): void {
    this.closed = code;
  }
  serializeAttachment(value: unknown): void {
    this.attachment = structuredClone(value);
  }
  deserializeAttachment(): unknown {
    return structuredClone(this.attachment);
  }
}

/** A server for plain sockets on `store`, in virtual time, with the target `target` makes. */
function plainServer(
  target: (system: ActorSystem) => ActorRef<SocketMessage>,
  store = new Map<string, unknown>(),
) {
  const scheduler = new ManualScheduler();
  const system = ActorSystem.create("o", { scheduler, logLevel: "off" });
  const deadLetters: DeadLetter[] = [];
  system.eventStream.subscribe(DeadLetter, (dead) => deadLetters.push(dead));
  const ctx = { acceptWebSocket: () => {}, getWebSockets: () => [] };
  const server = new SocketServer(ctx, {
    system,
    store,
    target: target(system),
  });
  const done = async () => {
    const ending = system.terminate();
    await scheduler.timePasses(0);
    await ending;
  };
  return { scheduler, system, server, store, deadLetters, done };
}

/** Whether a frame from the server is the library's. */
const isControl = (frame: unknown): boolean =>
  typeof frame === "string" && frame[0] === "\u0006";

describe("socket server: reloads, dead letters and replaced sockets", () => {
  it("a reloaded page (same client id, ids from its word) while the last page's message is in the actor: both processed and acknowledged, once, in order", async () => {
    const world = new World();
    try {
      const page1 = world.connect("tab-1");
      await world.tick(1);
      const view1 = world.life.sockets.get(world.firstEnd)!;
      // The tab reloads: page 1 is gone; page 2 (the same client id, from
      // sessionStorage) opens its socket.
      world.clientSystem.stop(page1);
      await world.scheduler.timePasses(0);
      const replies = new Map<string, Sent[]>();
      const page2 = world.connect("tab-1");
      askAll(page2, ["new"], replies);
      await world.scheduler.timePasses(0);
      // Page 1's last frame reached the object just before; the actor's
      // turn for it has not run when page 2's upgrade is accepted.
      world.life.server.webSocketMessage(view1, "1:old");
      for (let i = 0; i < 10; i++) await world.tick(1);
      askAll(page2, ["newer"], replies);
      for (let i = 0; i < 5; i++) await world.tick(1);
      assert.deepEqual(world.log.map((e) => e[2]), ["old", "new", "newer"]);
      assert.deepEqual(
        [...replies].map((
          [text, sent],
        ) => [text, sent.map((s) => s.acknowledged)]),
        [["new", [true]], ["newer", [true]]],
      );
      assert.deepEqual(world.network.last.sent, ["2:new", "3:newer"]);
    } finally {
      await world.done();
    }
  });

  it("holds a new socket's word while an earlier socket's messages are in the actor; their acknowledgements and replies do not reach it", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const processed: string[] = [];
    class Slow extends Actor<SocketMessage> {
      async onReceive(message: SocketMessage): Promise<void> {
        if (message.id === 1) await gate;
        processed.push(String(message.data));
        message.connection.tell(`done ${String(message.data)}`);
      }
    }
    const o = plainServer((system) =>
      system.actorOf(Props.create(() => new Slow()))
    );
    try {
      const older = new PlainSocket();
      o.server.adopt(older, "tab-1");
      o.server.webSocketMessage(older, "1:old");
      await o.scheduler.timePasses(0); // the actor awaits in its turn on 1
      const newer = new PlainSocket();
      o.server.adopt(newer, "tab-1");
      assert.deepEqual(newer.sent, [], "no word while 1 is in the actor");
      release();
      await o.scheduler.timePasses(0);
      await o.scheduler.timePasses(0);
      assert.deepEqual(newer.sent, ["\u0006r1"]);
      assert.deepEqual(
        o.deadLetters.map((d) => [d.message, d.reason]),
        [[
          "done old",
          "client tab-1 is connecting (its word waits for the messages in the actor)",
        ]],
      );
      o.server.webSocketMessage(newer, "2:new");
      await o.scheduler.timePasses(0);
      assert.deepEqual(processed, ["old", "new"]);
      assert.deepEqual(newer.sent.filter(isControl), ["\u0006r1", "\u00062"]);
      assert.deepEqual(newer.sent.filter((f) => !isControl(f)), ["done new"]);
    } finally {
      release();
      await o.done();
    }
  });

  it("a dead letter (a full mailbox) is refused, with its reason, but the mark waits for the earlier ids: an eviction's next life has them sent again", async () => {
    const store = new Map<string, unknown>();
    const first = plainServer((system) =>
      system.actorOf(
        Props.create(() => new Recorder(store), { mailboxCapacity: 2 }),
      ), store);
    const second = plainServer(
      (system) => system.actorOf(Props.create(() => new Recorder(store))),
      store,
    );
    try {
      const socket = new PlainSocket();
      first.server.adopt(socket, "tab-1");
      // Before the actor's turn: 1 and 2 fill its mailbox, 3 is refused.
      first.server.webSocketMessage(socket, "1:a");
      first.server.webSocketMessage(socket, "2:b");
      first.server.webSocketMessage(socket, "3:c");
      const refusal = "\u0006x3:mailbox full (capacity 2)";
      assert.deepEqual(socket.sent, ["\u0006r0", refusal]);
      assert.equal(store.get("understudy/socket/tab-1"), undefined);
      assert.deepEqual(
        first.deadLetters.map((d) => (d.message as SocketMessage).id),
        [3],
      );
      // Evicted now: the next life tells the client that nothing was handled,
      // after the refusal (stored in its turn).
      const next = new PlainSocket();
      second.server.adopt(next, "tab-1");
      assert.deepEqual(next.sent, [refusal, "\u0006r0"]);
      // Not evicted: once 1 and 2 are processed, the mark passes 3.
      await first.scheduler.timePasses(0);
      assert.deepEqual(store.get("log"), [["tab-1", 1, "a"], [
        "tab-1",
        2,
        "b",
      ]]);
      assert.equal(store.get("understudy/socket/tab-1"), 3);
      assert.deepEqual(socket.sent.filter(isControl), [
        "\u0006r0",
        refusal,
        "\u00061",
        "\u00062",
      ]);
      // A copy of the refused one is refused again, in this life.
      first.server.webSocketMessage(socket, "3:c");
      assert.equal(socket.sent.at(-1), refusal);
    } finally {
      await first.done();
      await second.done();
    }
  });

  it("a message the object refuses (its actor's mailbox is full) is not acknowledged: a dead letter on the client with the server's reason, never sent again", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    class Gated extends Actor<SocketMessage> {
      constructor(readonly store: Map<string, unknown>) {
        super();
      }
      async onReceive(message: SocketMessage): Promise<void> {
        if (message.data === "a") await gate;
        const log = (this.store.get("log") ?? []) as Log;
        this.store.set("log", [...log, [
          message.clientId,
          message.id,
          String(message.data),
        ]]);
      }
    }
    const world = new World((system, store) =>
      system.actorOf(
        Props.create(() => new Gated(store), { mailboxCapacity: 1 }),
        "room",
      )
    );
    const clientDeadLetters: DeadLetter[] = [];
    world.clientSystem.eventStream.subscribe(
      DeadLetter,
      (dead) => clientDeadLetters.push(dead),
    );
    const dropped: WebSocketMessageDropped[] = [];
    world.clientSystem.eventStream.subscribe(
      WebSocketMessageDropped,
      (event) => dropped.push(event),
    );
    try {
      const connection = world.connect("tab-1");
      await world.tick(1);
      const replies = new Map<string, Sent[]>();
      const failures = new Map<string, unknown>();
      const ask = (text: string) =>
        connection.ask<Sent>(new Send(text), 600_000).then(
          (sent) => replies.set(text, [...(replies.get(text) ?? []), sent]),
          (error) => failures.set(text, error),
        );
      ask("a");
      await world.tick(1); // the actor awaits in its turn on a
      ask("b"); // fills the mailbox
      ask("c"); // refused
      await world.tick(1);
      await world.tick(1);
      const reason = "refused by the server: mailbox full (capacity 1)";
      const error = failures.get("c");
      assert.ok(error instanceof UndeliveredError, String(error));
      assert.equal(error.reason, reason);
      assert.deepEqual(
        clientDeadLetters.map((d) => [(d.message as Send).data, d.reason]),
        [["c", reason]],
      );
      assert.deepEqual(
        dropped.map((e) => [(e.message as Send).data, e.reason]),
        [[
          "c",
          reason,
        ]],
      );
      release();
      await world.tick(1);
      await world.tick(1);
      ask("d");
      await world.tick(1);
      await world.tick(1);
      // The connection drops and comes back: nothing is sent again.
      world.drop();
      for (let i = 0; i < 10; i++) await world.tick(10);
      ask("e");
      for (let i = 0; i < 3; i++) await world.tick(1);
      assert.deepEqual(world.log.map((e) => e[1] + e[2]), [
        "1a",
        "2b",
        "4d",
        "5e",
      ]);
      assert.deepEqual(
        [...replies].map(([text, sent]) => [
          text,
          sent.map((s) => s.acknowledged),
        ]),
        [["a", [true]], ["b", [true]], ["d", [true]], ["e", [true]]],
      );
      assert.deepEqual([...failures.keys()], ["c"]);
      assert.ok(world.network.sockets.length >= 2, "it reconnected");
      assert.deepEqual(
        world.network.sockets.flatMap((s) => s.sent),
        ["1:a", "2:b", "3:c", "4:d", "5:e"],
      );
    } finally {
      release();
      await world.done();
    }
  });

  it("a refusal made with no socket (its actor stopped) goes before the next socket's word", async () => {
    const store = new Map<string, unknown>();
    class Stopping extends Actor<SocketMessage> {
      onReceive(message: SocketMessage): void {
        store.set("log", [...(store.get("log") as Log ?? []), [
          message.clientId,
          message.id,
          String(message.data),
        ]]);
        this.context.stop(this.self);
      }
    }
    const plain = plainServer(
      (system) => system.actorOf(Props.create(() => new Stopping())),
      store,
    );
    try {
      const socket = new PlainSocket();
      plain.server.adopt(socket, "tab-1");
      plain.server.webSocketMessage(socket, "1:a");
      plain.server.webSocketMessage(socket, "2:b");
      plain.server.webSocketClose(socket, 1006, "", false);
      // a is processed, the actor stops, and b is a dead letter: no socket.
      for (let i = 0; i < 3; i++) await plain.scheduler.timePasses(0);
      assert.deepEqual(store.get("log"), [["tab-1", 1, "a"]]);
      assert.equal(store.get("understudy/socket/tab-1"), 2);
      const [dead] = plain.deadLetters;
      assert.equal((dead?.message as SocketMessage).id, 2);
      const next = new PlainSocket();
      plain.server.adopt(next, "tab-1");
      assert.deepEqual(next.sent, [
        refusalFrame(2, dead.reason!),
        "\u0006r2",
      ]);
    } finally {
      await plain.done();
    }
  });

  it("a refusal made with no socket goes, after an eviction, before the next life's word: never acknowledged", async () => {
    const store = new Map<string, unknown>();
    class Stopping extends Actor<SocketMessage> {
      onReceive(message: SocketMessage): void {
        store.set("log", [...(store.get("log") as Log ?? []), [
          message.clientId,
          message.id,
          String(message.data),
        ]]);
        this.context.stop(this.self);
      }
    }
    const first = plainServer(
      (system) => system.actorOf(Props.create(() => new Stopping())),
      store,
    );
    const second = plainServer(
      (system) => system.actorOf(Props.create(() => new Recorder(store))),
      store,
    );
    try {
      const socket = new PlainSocket();
      first.server.adopt(socket, "tab-1");
      first.server.webSocketMessage(socket, "1:a");
      first.server.webSocketMessage(socket, "2:b");
      first.server.webSocketClose(socket, 1006, "", false);
      // a is processed, the actor stops, and b is a dead letter: no socket.
      for (let i = 0; i < 3; i++) await first.scheduler.timePasses(0);
      assert.equal(store.get("understudy/socket/tab-1"), 2);
      const [dead] = first.deadLetters;
      assert.equal((dead?.message as SocketMessage).id, 2);
      await first.done();
      // Evicted: the next life reads the refusal from storage with the mark.
      const next = new PlainSocket();
      second.server.adopt(next, "tab-1");
      assert.deepEqual(next.sent, [
        refusalFrame(2, dead.reason!),
        "\u0006r2",
      ]);
      // A copy of it is refused again there, not acknowledged.
      second.server.webSocketMessage(next, "2:b");
      assert.equal(next.sent.at(-1), refusalFrame(2, dead.reason!));
      await second.scheduler.timePasses(0);
      assert.deepEqual(store.get("log"), [["tab-1", 1, "a"]]);
    } finally {
      await first.done();
      await second.done();
    }
  });

  it("a copy of a refused id that reaches a later life (after an eviction) is refused again, not acknowledged", async () => {
    const store = new Map<string, unknown>();
    const first = plainServer((system) =>
      system.actorOf(
        Props.create(() => new Recorder(store), { mailboxCapacity: 2 }),
      ), store);
    const second = plainServer(
      (system) => system.actorOf(Props.create(() => new Recorder(store))),
      store,
    );
    try {
      const socket = new PlainSocket();
      first.server.adopt(socket, "tab-1");
      first.server.webSocketMessage(socket, "1:a");
      first.server.webSocketMessage(socket, "2:b");
      first.server.webSocketMessage(socket, "3:c");
      await first.scheduler.timePasses(0);
      const refusal = "\u0006x3:mailbox full (capacity 2)";
      assert.deepEqual(socket.sent.filter(isControl), [
        "\u0006r0",
        refusal,
        "\u00061",
        "\u00062",
      ]);
      assert.equal(store.get("understudy/socket/tab-1"), 3);
      await first.done();
      // Evicted; the client (its socket dropped) sends a copy of c.
      const next = new PlainSocket();
      second.server.adopt(next, "tab-1");
      assert.deepEqual(next.sent, [refusal, "\u0006r3"]);
      second.server.webSocketMessage(next, "3:c");
      assert.equal(next.sent.at(-1), refusal);
      assert.equal(next.sent.includes("\u00063"), false);
      await second.scheduler.timePasses(0);
      assert.deepEqual(
        (store.get("log") as Log).map((e) => e[1] + e[2]),
        ["1a", "2b"],
      );
    } finally {
      await first.done();
      await second.done();
    }
  });

  it("a refusal lost with a dropping connection is sent again before the next word: a dead letter on the client, never acknowledged", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    class Gated extends Actor<SocketMessage> {
      constructor(readonly store: Map<string, unknown>) {
        super();
      }
      async onReceive(message: SocketMessage): Promise<void> {
        if (message.data === "a") await gate;
        const log = (this.store.get("log") ?? []) as Log;
        this.store.set("log", [...log, [
          message.clientId,
          message.id,
          String(message.data),
        ]]);
      }
    }
    const world = new World((system, store) =>
      system.actorOf(
        Props.create(() => new Gated(store), { mailboxCapacity: 1 }),
        "room",
      )
    );
    const clientDeadLetters: DeadLetter[] = [];
    world.clientSystem.eventStream.subscribe(
      DeadLetter,
      (dead) => clientDeadLetters.push(dead),
    );
    // The refusal of c is sent, then the connection drops before it lands.
    world.afterMessage = (data) => {
      if (data === "3:c") world.drop();
    };
    try {
      const connection = world.connect("tab-1");
      await world.tick(1);
      const replies = new Map<string, Sent[]>();
      const failures = new Map<string, unknown>();
      const ask = (text: string) =>
        connection.ask<Sent>(new Send(text), 600_000).then(
          (sent) => replies.set(text, [...(replies.get(text) ?? []), sent]),
          (error) => failures.set(text, error),
        );
      ask("a");
      await world.tick(1); // the actor awaits in its turn on a
      ask("b"); // fills the mailbox
      ask("c"); // refused, and the refusal lost
      await world.tick(1);
      await world.tick(1);
      assert.equal(failures.size, 0);
      assert.equal(
        world.serverDeadLetters.map((d) => (d.message as SocketMessage).id)
          .join(),
        "3",
      );
      // It reconnects while a and b are in the actor: the word is held.
      for (let i = 0; i < 10; i++) await world.tick(10);
      assert.equal(world.network.sockets.length, 2);
      release();
      for (let i = 0; i < 5; i++) await world.tick(1);
      const reason = "refused by the server: mailbox full (capacity 1)";
      const error = failures.get("c");
      assert.ok(error instanceof UndeliveredError, String(error));
      assert.equal(error.reason, reason);
      assert.deepEqual(
        clientDeadLetters.map((d) => [(d.message as Send).data, d.reason]),
        [["c", reason]],
      );
      ask("d");
      ask("e");
      for (let i = 0; i < 5; i++) await world.tick(1);
      assert.deepEqual(world.log.map((e) => e[1] + e[2]), [
        "1a",
        "2b",
        "4d",
        "5e",
      ]);
      assert.deepEqual(
        [...replies].map(([text, sent]) => [
          text,
          sent.map((s) => s.acknowledged),
        ]),
        [["a", [true]], ["b", [true]], ["d", [true]], ["e", [true]]],
      );
      assert.deepEqual([...failures.keys()], ["c"]);
      // Sent once each: c is not sent again after its refusal.
      assert.deepEqual(
        world.network.sockets.flatMap((s) => s.sent),
        ["1:a", "2:b", "3:c", "4:d", "5:e"],
      );
    } finally {
      release();
      await world.done();
    }
  });

  it("a BackoffSupervisor's full stash: the newest is a dead letter, and the mark waits for those stashed", async () => {
    const store = new Map<string, unknown>();
    class Room extends Actor<SocketMessage> {
      onReceive(message: SocketMessage): void {
        if (message.data === "crash") throw new Error("crash");
        const log = (store.get("log") ?? []) as Log;
        store.set("log", [...log, [
          message.clientId,
          message.id,
          "" + message.data,
        ]]);
      }
    }
    const o = plainServer((system) =>
      system.actorOf(BackoffSupervisor.props({
        childProps: Props.create(() => new Room()),
        minBackoff: 1_000,
        maxBackoff: 1_000,
        randomFactor: 0,
        maxStashSize: 2,
      })) as never, store);
    try {
      await o.scheduler.timePasses(5);
      const socket = new PlainSocket();
      o.server.adopt(socket, "tab-1");
      o.server.webSocketMessage(socket, "1:crash");
      await o.scheduler.timePasses(5); // the child is down for 1 s
      o.server.webSocketMessage(socket, "2:x");
      o.server.webSocketMessage(socket, "3:y");
      o.server.webSocketMessage(socket, "4:z"); // over maxStashSize
      await o.scheduler.timePasses(5);
      assert.equal(store.get("understudy/socket/tab-1"), 1);
      const refusal = "\u0006x4:stash full (maxStashSize 2)";
      assert.deepEqual(socket.sent, ["\u0006r0", "\u00061", refusal]);
      // The child is back, and is given those stashed.
      for (let i = 0; i < 4; i++) await o.scheduler.timePasses(500);
      assert.deepEqual(store.get("log"), [["tab-1", 2, "x"], [
        "tab-1",
        3,
        "y",
      ]]);
      assert.equal(store.get("understudy/socket/tab-1"), 4);
      assert.deepEqual(socket.sent, [
        "\u0006r0",
        "\u00061",
        refusal,
        "\u00062",
        "\u00063",
      ]);
    } finally {
      await o.done();
    }
  });

  it("a late frame on a socket it replaced does not make that socket the client's again", async () => {
    const store = new Map<string, unknown>();
    const o = plainServer(
      (system) => system.actorOf(Props.create(() => new Recorder(store))),
      store,
    );
    try {
      const older = new PlainSocket();
      const newer = new PlainSocket();
      o.server.adopt(older, "tab-1");
      o.server.adopt(newer, "tab-1");
      assert.equal(older.closed, 4000);
      o.server.webSocketClose(newer, 1006, "", false);
      // A frame older's client sent before it saw the close.
      o.server.webSocketMessage(older, "1:late");
      await o.scheduler.timePasses(0);
      assert.deepEqual(o.server.clients, []);
      assert.equal(store.get("log"), undefined);
      o.server.connection("tab-1").tell("hi");
      await o.scheduler.timePasses(0);
      assert.deepEqual(o.deadLetters.map((d) => d.reason), [
        "client tab-1 is not connected",
      ]);
    } finally {
      await o.done();
    }
  });
});

describe("socket server: at random (seeded)", () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    it(`two clients, 200 messages each, through drops, evictions and hibernations: each processed once, in order, answered once (seed ${seed})`, async () => {
      const source = seededRandom(seed);
      const random = () => source.next();
      const world = new World();
      try {
        const clients = ["a", "b"].map((id) => ({
          id,
          connection: world.connect(id),
          texts: Array.from({ length: 200 }, (_, i) => `${id}${i + 1}`),
          next: 0,
        }));
        const replies = new Map<string, Sent[]>();
        const total = clients.length * 200;
        const faults: string[] = [];
        while (replies.size < total) {
          for (const client of clients) {
            const burst = Math.min(
              client.texts.length - client.next,
              Math.floor(random() * 8),
            );
            const texts = client.texts.slice(client.next, client.next + burst);
            askAll(client.connection, texts, replies);
            client.next += burst;
          }
          const roll = random();
          if (roll < 0.06) {
            faults.push("evict");
            world.evict(false);
          } else if (roll < 0.12) {
            faults.push("evict, sockets kept");
            world.evict(true);
          } else if (roll < 0.15) {
            faults.push("hibernate");
            world.hibernate();
          } else if (roll < 0.2) {
            faults.push("drop");
            world.drop();
          }
          await world.tick(Math.floor(random() * 30));
          if (world.scheduler.now() > 600_000) break;
        }
        for (const { id, texts } of clients) {
          assert.deepEqual(
            world.log.filter((e) => e[0] === id).map((e) => e[2]),
            texts,
            `seed ${seed}, client ${id}, faults ${faults.join(", ")}`,
          );
        }
        assert.equal(world.log.length, total);
        assert.equal(replies.size, total);
        assert.ok(
          [...replies.values()].every((s) =>
            s.length === 1 && s[0].acknowledged
          ),
        );
        assert.ok(faults.length > 5, `only ${faults.length} faults`);
      } finally {
        await world.done();
      }
    });
  }
});
