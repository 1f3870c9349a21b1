/**
 * The dispatcher: observers hear of every call, in order, after its result
 * is handed back and before the next call runs; they never change a result.
 */

import { assertEquals } from "../../_assert.ts";
import {
  type CallObserver,
  Dispatcher,
  type ToolProvider,
} from "../../../host/providers/dispatcher.ts";

const echo: ToolProvider = {
  name: "echo",
  list:
    () => [{ name: "echo", description: "Echo", inputSchema: { type: "object" }, annotations: {} }],
  call: (_name, args) =>
    Promise.resolve({
      result: { content: [{ type: "text", text: JSON.stringify(args) }] },
      paths: [],
    }),
};

const ctx = { session: "s", client: "test" };

Deno.test("dispatcher: observers are told after the result, in order, before the next call", async () => {
  const heard: string[] = [];
  const observer: CallObserver = {
    before: (call) => heard.push(`before ${JSON.stringify(call.args)}`),
    after: (call, outcome) =>
      heard.push(`after ${JSON.stringify(call.args)} ${outcome.result.isError ?? false}`),
  };
  const dispatcher = new Dispatcher([echo], { observers: [observer] });

  await dispatcher.call("echo", { n: 1 }, ctx);
  heard.push("result 1");
  await dispatcher.call("echo", { n: 2 }, ctx);
  heard.push("result 2");
  dispatcher.settle();
  assertEquals(heard, [
    'before {"n":1}',
    "result 1",
    'after {"n":1} false',
    'before {"n":2}',
    "result 2",
    'after {"n":2} false',
  ]);
});

Deno.test("dispatcher: observers are told soon without a next call", async () => {
  const heard: number[] = [];
  const told = Promise.withResolvers<void>();
  const dispatcher = new Dispatcher([echo], {
    observers: [{
      after: (call) => (heard.push((call.args as { n: number }).n), told.resolve()),
    }],
  });
  await dispatcher.call("echo", { n: 7 }, ctx);
  assertEquals(heard, [], "not on the caller's way");
  // Told with no next call to carry it: waiting for the event is enough.
  await told.promise;
  assertEquals(heard, [7]);
});

Deno.test("dispatcher: a failing observer changes nothing for the caller or other observers", async () => {
  const errors: unknown[] = [];
  const heard: number[] = [];
  const dispatcher = new Dispatcher([echo], {
    observers: [
      {
        after: () => {
          throw new Error("observer broke");
        },
      },
      { after: (call) => heard.push((call.args as { n: number }).n) },
    ],
    onObserverError: (error) => errors.push(error),
  });
  const result = await dispatcher.call("echo", { n: 3 }, ctx);
  dispatcher.settle();
  assertEquals(result.content, [{ type: "text", text: '{"n":3}' }]);
  assertEquals(heard, [3]);
  assertEquals(errors.length, 1);
});

Deno.test("dispatcher: with idle work, a worker's calls leave the observers to the idle moment; any other call, an observer of beginnings or settle tells them first", async () => {
  const queued: Array<() => void> = [];
  const idle = {
    add: (work: () => void) => queued.push(work),
    run: () => queued.splice(0).forEach((work) => work()),
  };
  const heard: string[] = [];
  const worker: ToolProvider = { ...echo, name: "worker", readsNoObservations: true };
  const host: ToolProvider = {
    ...echo,
    name: "host",
    list: () => [{ ...echo.list()[0]!, name: "stats" }],
  };
  const dispatcher = new Dispatcher([worker, host], {
    observers: [{ after: (call) => heard.push(`after ${JSON.stringify(call.args)}`) }],
    idle,
  });
  await dispatcher.call("echo", { n: 1 }, ctx);
  await dispatcher.call("echo", { n: 2 }, ctx);
  // A worker's calls: nothing is told until the idle work runs, queued once for both.
  assertEquals(heard, []);
  assertEquals(queued.length, 1);
  idle.run();
  assertEquals(heard, ['after {"n":1}', 'after {"n":2}']);

  // A call that is not a worker's (it may read what observers keep) hears of the last one first.
  await dispatcher.call("echo", { n: 3 }, ctx);
  await dispatcher.call("stats", { n: 4 }, ctx);
  assertEquals(heard.slice(2), ['after {"n":3}']);
  dispatcher.settle();
  assertEquals(heard.slice(3), ['after {"n":4}']);
  assertEquals(queued.length, 0, "settle ran the idle work too");

  // An observer of beginnings hears of the last call's end before the next begins.
  heard.length = 0;
  dispatcher.observe({ before: (call) => heard.push(`before ${JSON.stringify(call.args)}`) });
  await dispatcher.call("echo", { n: 5 }, ctx);
  await dispatcher.call("echo", { n: 6 }, ctx);
  assertEquals(heard, ['before {"n":5}', 'after {"n":5}', 'before {"n":6}']);
  dispatcher.settle();
  assertEquals(heard.at(-1), 'after {"n":6}');
});
