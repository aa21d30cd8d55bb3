// The part of an anywidget model (the `model` of initialize/render) the views use.

/** A model listener: change listeners get no arguments, "msg:custom" ones the message and
 * its binary buffers. */
// biome-ignore lint/suspicious/noExplicitAny: listeners take what the event carries
export type Listener = (...args: any[]) => void;

export interface Model {
  /** A trait's value: JSON as the kernel sent it, or a DataView for a bytes trait. */
  // biome-ignore lint/suspicious/noExplicitAny: each trait has its own type
  get(name: string): any;
  set(name: string, value: unknown): void;
  save_changes(): void;
  on(event: string, callback: Listener): void;
  off(event?: string | null, callback?: Listener | null): void;
  send(content: unknown, callbacks?: unknown, buffers?: ArrayBuffer[] | ArrayBufferView[]): void;
}
