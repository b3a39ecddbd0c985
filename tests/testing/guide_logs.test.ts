import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Actor,
  ActorSystem,
  consoleSink,
  type LogRecord,
  type LogSink,
  Props,
} from "../../mod.ts";
import { ManualScheduler } from "../../src/testing/mod.ts";

class Parser extends Actor<string> {
  onReceive(text: string): void {
    if (text === "") throw new Error("empty input");
    this.log.info(`parsed ${text.length} characters`);
  }
}

describe("what an actor system logs", () => {
  it("a failure once, at error level, with the thrown error", async () => {
    const records: LogRecord[] = [];
    const scheduler = new ManualScheduler();
    const system = ActorSystem.create("test", {
      scheduler,
      logger: (record) => records.push(record), // instead of the console
    });
    const parser = system.actorOf(Props.create(() => new Parser()), "parser");
    parser.tell(""); // fails: the guardian's default strategy restarts it
    parser.tell("abc"); // handled by the fresh instance
    await scheduler.timePasses(0);

    assert.deepEqual(
      records.map(({ level, path, message }) => `${level} ${path} ${message}`),
      [
        "info /test dead letter to /user/parser (processing failed: Error: empty input)",
        "error /user/parser failed (restart)",
        "info /user/parser parsed 3 characters",
      ],
    );
    assert.equal((records[1].error as Error).message, "empty input");
    await system.terminate();
  });

  it("a sink of your own: JSON lines, and warnings on to the console", async () => {
    const lines: string[] = [];
    const sink: LogSink = (record) => {
      lines.push(JSON.stringify({
        level: record.level,
        path: record.path,
        message: record.message,
        error: record.error instanceof Error ? record.error.message : undefined,
      }));
      if (record.level === "warn" || record.level === "error") {
        consoleSink(record); // "[error] /user/parser failed (restart): Error: …"
      }
    };
    const system = ActorSystem.create("app", {
      logLevel: "debug",
      logger: sink,
    });
    system.log.debug("configured"); // the system's own logger: path "/app"
    system.deadLetters.tell("lost"); // the first 10 dead letters: at info
    await system.terminate();
    assert.deepEqual(lines, [
      '{"level":"debug","path":"/app","message":"configured"}',
      '{"level":"info","path":"/app","message":"dead letter to /deadLetters (sent to deadLetters)"}',
    ]);
  });
});
