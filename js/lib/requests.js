// @ts-check
// Requests to the kernel as custom messages with ids (glade/views/requests.py answers
// them). One request of each kind is in flight at a time: a newer one waits and replaces
// any older waiting one, so superseded requests are never sent, and answers to anything
// but the latest request of their kind are dropped.

/** @typedef {import("./widget").Model} Model */
/** @typedef {{ type: string, id: number, [field: string]: unknown }} Message */

export class RequestClient {
  /**
   * `model` is the widget model (`send`, `on("msg:custom")`); `onAnswer(kind, answer,
   * buffers)` gets the answer to the latest request of a kind, `onError(kind, message)`
   * its error.
   * @param {Model} model
   * @param {{
   *   onAnswer: (kind: string, answer: Message, buffers: DataView[]) => void,
   *   onError?: (kind: string, message: string) => void,
   * }} handlers
   */
  constructor(model, { onAnswer, onError = () => {} }) {
    this.model = model;
    this.onAnswer = onAnswer;
    this.onError = onError;
    this.nextId = 1;
    /** @type {Map<string, number>} the id of the request of each kind in flight */
    this.inFlight = new Map();
    /** @type {Map<string, Message>} the request of each kind waiting to be sent */
    this.waiting = new Map();
    /** @type {Map<string, number>} the id of the latest request of each kind */
    this.latest = new Map();
    /** @type {(message: any, buffers?: DataView[]) => void} */
    this.listener = (message, buffers) => this.receive(message, buffers);
    model.on("msg:custom", this.listener);
  }

  /** Ask for `kind` with `fields` (sent now, or when the one in flight is answered).
   * @param {string} kind @param {Record<string, unknown>} fields @returns {number} its id */
  request(kind, fields) {
    const id = this.nextId++;
    this.latest.set(kind, id);
    const message = { ...fields, type: kind, id };
    if (this.inFlight.has(kind)) this.waiting.set(kind, message);
    else this.send(kind, message);
    return id;
  }

  /** @param {string} kind @param {Message} message */
  send(kind, message) {
    this.inFlight.set(kind, message.id);
    this.model.send(message);
  }

  /** A custom message from the kernel (answers of other kinds, or stale ones, are dropped).
   * @param {any} message @param {DataView[]} [buffers] */
  receive(message, buffers) {
    if (!message || typeof message !== "object") return;
    const kind = message.type === "error" ? message.request : message.type;
    if (!this.inFlight.has(kind) || this.inFlight.get(kind) !== message.id) return;
    this.inFlight.delete(kind);
    const next = this.waiting.get(kind);
    if (next) {
      this.waiting.delete(kind);
      this.send(kind, next);
    }
    if (message.id !== this.latest.get(kind)) return;
    if (message.type === "error") this.onError(kind, message.message);
    else this.onAnswer(kind, message, buffers ?? []);
  }

  /** Forget the requests of `kind`: the waiting one is not sent, and the answer to the
   * one in flight is dropped (what they asked for is no longer wanted).
   * @param {string} kind */
  drop(kind) {
    this.waiting.delete(kind);
    this.latest.delete(kind);
  }

  /** Whether a request of `kind` is in flight or waiting. @param {string} kind */
  busy(kind) {
    return this.inFlight.has(kind) || this.waiting.has(kind);
  }

  close() {
    this.model.off("msg:custom", this.listener);
  }
}
