// @ts-check
// The line every view shows when the kernel refused what the page sent (an edit, a state
// the kernel could not take): the model's `error` trait, which the kernel clears on the
// next change it takes. The view itself is left as the kernel kept it.

/** @typedef {import("./widget").Model} Model */

/**
 * Show the model's `error` in a line at the top of `root` (hidden while it is empty);
 * its × button hides the line until the next refusal. Listeners go with `signal`.
 * @param {Model} model
 * @param {HTMLElement} root
 * @param {AbortSignal} [signal]
 * @returns {HTMLElement} the line
 */
export function bindErrorLine(model, root, signal) {
  const line = document.createElement("div");
  line.className = "glade-error";
  line.setAttribute("role", "alert");
  const text = document.createElement("span");
  const close = document.createElement("button");
  close.type = "button";
  close.textContent = "×";
  close.title = "Hide this message";
  close.setAttribute("aria-label", "Hide this message");
  line.append(text, close);
  root.prepend(line);
  const show = () => {
    const message = String(model.get("error") ?? "");
    text.textContent = message;
    line.hidden = message === "";
  };
  close.addEventListener(
    "click",
    () => {
      line.hidden = true;
    },
    { signal },
  );
  model.on("change:error", show);
  signal?.addEventListener("abort", () => model.off("change:error", show));
  show();
  return line;
}
