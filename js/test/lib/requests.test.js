import { describe, expect, it } from "vitest";
import { RequestClient } from "../../lib/requests.js";

/** A widget model stand-in: records what is sent, lets the test answer. */
function fakeModel() {
  const listeners = [];
  return {
    sent: [],
    send(message) {
      this.sent.push(message);
    },
    on(event, callback) {
      if (event === "msg:custom") listeners.push(callback);
    },
    off(_event, callback) {
      listeners.splice(listeners.indexOf(callback), 1);
    },
    answer(message, buffers = []) {
      for (const listener of [...listeners]) listener(message, buffers);
    },
  };
}

describe("requests to the kernel", () => {
  it("sends one request of a kind at a time and only the latest waiting one", () => {
    const model = fakeModel();
    const answers = [];
    const client = new RequestClient(model, { onAnswer: (kind, a) => answers.push([kind, a.id]) });
    client.request("range", { t0: 0 });
    client.request("range", { t0: 1 });
    client.request("range", { t0: 2 });
    expect(model.sent.map((m) => m.t0)).toEqual([0]);
    expect(client.busy("range")).toBe(true);
    model.answer({ type: "range", id: model.sent[0].id });
    // the superseded request (t0: 1) was never sent, the answer to t0: 0 is stale
    expect(model.sent.map((m) => m.t0)).toEqual([0, 2]);
    expect(answers).toEqual([]);
    model.answer({ type: "range", id: model.sent[1].id });
    expect(answers).toEqual([["range", model.sent[1].id]]);
    expect(client.busy("range")).toBe(false);
  });

  it("drops the requests of a kind no longer wanted", () => {
    const model = fakeModel();
    const answers = [];
    const client = new RequestClient(model, { onAnswer: (kind, a) => answers.push([kind, a.id]) });
    client.request("details", { supernode: "a" });
    client.request("details", { supernode: "b" });
    client.drop("details");
    model.answer({ type: "details", id: model.sent[0].id });
    // b was never sent, the answer about a is not reported, and the next request goes
    expect(model.sent.map((m) => m.supernode)).toEqual(["a"]);
    expect(answers).toEqual([]);
    expect(client.busy("details")).toBe(false);
    client.request("details", { supernode: "c" });
    model.answer({ type: "details", id: model.sent[1].id });
    expect(answers).toEqual([["details", model.sent[1].id]]);
  });

  it("keeps kinds apart, ignores strangers and reports errors", () => {
    const model = fakeModel();
    const answers = [];
    const errors = [];
    const client = new RequestClient(model, {
      onAnswer: (kind) => answers.push(kind),
      onError: (kind, text) => errors.push([kind, text]),
    });
    client.request("range", {});
    client.request("select", { node: 3 });
    expect(model.sent.map((m) => m.type)).toEqual(["range", "select"]);
    model.answer({ type: "select", id: 999 });
    model.answer("not an object");
    model.answer({ type: "error", id: model.sent[0].id, request: "range", message: "bad" });
    model.answer({ type: "select", id: model.sent[1].id, selection: "" });
    expect(errors).toEqual([["range", "bad"]]);
    expect(answers).toEqual(["select"]);
    client.close();
    client.request("range", {});
    model.answer({ type: "range", id: model.sent[2].id });
    expect(answers).toEqual(["select"]);
  });
});
