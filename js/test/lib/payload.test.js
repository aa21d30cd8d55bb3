import { describe, expect, it } from "vitest";
import { payloadRevision, readPayload, watchPayload } from "../../lib/payload.js";
import { pack } from "../packed.js";

/** A payload as glade/views/base.py QueryView._publish sends one: the blob of
 * pack_arrays and its descriptor. */
function publish(revision, fields, arrays, deflate = []) {
  const { descriptors, blob } = pack(arrays, deflate);
  // a bytes trait reaches the page as a DataView
  return {
    payload: new DataView(blob.buffer),
    payload_meta: { revision, arrays: descriptors, fields },
  };
}

/** A widget model holding `traits`, whose `set` fires the change events. */
function modelOf(traits) {
  const listeners = new Map();
  return {
    get: (name) => traits[name],
    set(name, value) {
      traits[name] = value;
    },
    change(next) {
      Object.assign(traits, next);
      for (const name of Object.keys(next)) {
        for (const listener of listeners.get(`change:${name}`) ?? []) listener();
      }
    },
    on(event, listener) {
      listeners.set(event, [...(listeners.get(event) ?? []), listener]);
    },
    off(event, listener) {
      listeners.set(
        event,
        (listeners.get(event) ?? []).filter((l) => l !== listener),
      );
    },
    save_changes() {},
    send() {},
  };
}

describe("a view's payload", () => {
  it("reads the revision, the fields and the typed arrays, deflated or not", async () => {
    const model = modelOf(
      publish(
        3,
        { metrics: [{ name: "time" }], bins: 20 },
        {
          parents: Int32Array.from([-1, 0, 0]),
          values: Float64Array.from([1.5, 2, 3]),
          names: Uint8Array.from([109, 97, 105, 110]),
          keep: Uint8Array.from([1, 0, 0, 0, 0, 0, 1]),
        },
        ["keep"],
      ),
    );
    expect(payloadRevision(model)).toBe(3);
    const { revision, fields, arrays } = await readPayload(model);
    expect(revision).toBe(3);
    expect(fields).toEqual({ metrics: [{ name: "time" }], bins: 20 });
    expect(arrays.parents).toBeInstanceOf(Int32Array);
    expect(Array.from(arrays.parents)).toEqual([-1, 0, 0]);
    expect(arrays.values).toBeInstanceOf(Float64Array);
    expect(Array.from(arrays.values)).toEqual([1.5, 2, 3]);
    expect(new TextDecoder().decode(arrays.names)).toBe("main");
    expect(Array.from(arrays.keep)).toEqual([1, 0, 0, 0, 0, 0, 1]);
  });

  it("is empty before the kernel published one", async () => {
    const model = modelOf({ payload: new DataView(new ArrayBuffer(0)), payload_meta: {} });
    expect(payloadRevision(model)).toBe(0);
    expect(await readPayload(model)).toEqual({ revision: 0, fields: {}, arrays: {} });
  });

  it("is watched in revision order, a payload replaced while decoding dropped", async () => {
    const model = modelOf(publish(1, { n: 1 }, { a: Int32Array.from([1]) }));
    const seen = [];
    const stop = watchPayload(model, (payload) => seen.push(payload.fields.n));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(seen).toEqual([1]);
    // two payloads arrive before the first is decoded (a deflated one takes longer)
    model.change(publish(2, { n: 2 }, { a: Int32Array.from(new Array(5000).fill(2)) }, ["a"]));
    model.change(publish(3, { n: 3 }, { a: Int32Array.from([3]) }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toEqual([1, 3]);
    stop();
    model.change(publish(4, { n: 4 }, { a: Int32Array.from([4]) }));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen).toEqual([1, 3]);
  });
});
