// Requests to the kernel as custom messages with ids (glade/views/requests.py answers
// them). One request of each kind is in flight at a time: a newer one waits and replaces
// any older waiting one, so superseded requests are never sent, and answers to anything
// but the latest request of their kind are dropped.

export class RequestClient {
  /**
   * `model` is the widget model (`send`, `on("msg:custom")`); `onAnswer(kind, answer,
   * buffers)` gets the answer to the latest request of a kind, `onError(kind, message)`
   * its error.
   */
  constructor(model, { onAnswer, onError = () => {} }) {
    this.model = model;
    this.onAnswer = onAnswer;
    this.onError = onError;
    this.nextId = 1;
    this.inFlight = new Map();
    this.waiting = new Map();
    this.latest = new Map();
    this.listener = (message, buffers) => this.receive(message, buffers);
    model.on("msg:custom", this.listener);
  }

  /** Ask for `kind` with `fields` (sent now, or when the one in flight is answered). */
  request(kind, fields) {
    const id = this.nextId++;
    this.latest.set(kind, id);
    const message = { ...fields, type: kind, id };
    if (this.inFlight.has(kind)) this.waiting.set(kind, message);
    else this.send(kind, message);
    return id;
  }

  send(kind, message) {
    this.inFlight.set(kind, message.id);
    this.model.send(message);
  }

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

  /** Whether a request of `kind` is in flight or waiting. */
  busy(kind) {
    return this.inFlight.has(kind) || this.waiting.has(kind);
  }

  close() {
    this.model.off("msg:custom", this.listener);
  }
}
