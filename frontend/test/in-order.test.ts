// Messages held behind a snapshot that waits for its Markdown language are applied after it, in order.

import assert from "node:assert/strict";
import { test } from "node:test";
import { InOrder } from "../src/in-order";

test("items behind one that waits are applied after it, in the order they came", async () => {
  const applied: string[] = [];
  const order = new InOrder<string>((item) => applied.push(item));
  order.push("before");
  let loaded!: () => void;
  order.push("snapshot", new Promise<void>((resolve) => (loaded = resolve)));
  order.push("update 1");
  order.push("update 2");
  assert.deepEqual(applied, ["before"]);
  assert.equal(order.waiting, true);
  loaded();
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(applied, ["before", "snapshot", "update 1", "update 2"]);
  assert.equal(order.waiting, false);
  order.push("after");
  assert.deepEqual(applied.at(-1), "after"); // nothing held: at once
});

test("a wait that fails, or an item that throws, holds up nothing behind it", async () => {
  const applied: string[] = [];
  const errors: unknown[] = [];
  const order = new InOrder<string>((item) => {
    if (item === "bad") throw new Error("bad message");
    applied.push(item);
  }, (error) => errors.push(error));
  order.push("snapshot", Promise.reject(new Error("chunk failed to load")));
  order.push("bad");
  order.push("next", Promise.resolve());
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(applied, ["snapshot", "next"]);
  assert.equal(errors.length, 1);
});
