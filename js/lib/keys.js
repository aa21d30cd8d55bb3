// @ts-check
// The keys every view shares, installed by one helper: Ctrl/Cmd+Z undoes, Ctrl/Cmd+Shift+Z
// and Ctrl/Cmd+Y redo (plain z and y too), Escape clears the selection or highlight. They
// act only while the view has the keyboard focus: JupyterLab keeps its own shortcuts
// everywhere else, and inside the view it is told to leave the keys alone.

/** @typedef {"undo" | "redo" | "escape"} EditKey */
/** @typedef {Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "shiftKey" | "altKey">} Keys */

/** The shared action of a key press, or null for any other key.
 * @param {Keys} event @returns {EditKey | null} */
export function editKey(event) {
  if (event.altKey) return null;
  const key = event.key.toLowerCase();
  if (event.ctrlKey || event.metaKey) {
    if (key === "z") return event.shiftKey ? "redo" : "undo";
    if (key === "y" && !event.shiftKey) return "redo";
    return null;
  }
  if (event.key === "Escape") return "escape";
  if (event.shiftKey) return null;
  if (event.key === "z") return "undo";
  if (event.key === "y") return "redo";
  return null;
}

const FOCUSABLE = "button, a[href], input, select, textarea, [tabindex], [contenteditable]";
const TEXT_INPUTS = new Set(["text", "search", "number", "email", "url", "tel", "password"]);

/** Whether `target` takes key presses itself (a text field, a menu): its own undo and
 * Escape are left to it.
 * @param {EventTarget | null} target @returns {boolean} */
export function takesKeys(target) {
  const node = /** @type {Partial<HTMLInputElement> | null} */ (target);
  if (typeof node?.tagName !== "string") return false;
  if (node.isContentEditable) return true;
  const tag = node.tagName.toUpperCase();
  if (tag === "INPUT") return TEXT_INPUTS.has(node.type ?? "text");
  return tag === "TEXTAREA" || tag === "SELECT";
}

/** Act on a key press inside a view: call the action of a shared key (and keep the key
 * from the page and JupyterLab); true when it did.
 * @param {Keys & Pick<KeyboardEvent, "target" | "preventDefault" | "stopPropagation">} event
 * @param {Record<EditKey, () => void>} actions
 * @returns {boolean} */
export function handleEditKey(event, actions) {
  if (takesKeys(event.target)) return false;
  const action = editKey(event);
  if (!action) return false;
  event.preventDefault();
  event.stopPropagation();
  actions[action]();
  return true;
}

/**
 * Install the shared keys on a view's outer element `root`: it becomes focusable (a
 * pointer press inside it gives it the focus), JupyterLab's shortcuts stand aside while
 * the focus is inside it (`data-lm-suppress-shortcuts`), and a key press inside it
 * calls `actions.undo`, `actions.redo` or `actions.escape`. Listeners go with `signal`.
 * @param {HTMLElement} root
 * @param {Record<EditKey, () => void>} actions
 * @param {AbortSignal} [signal]
 */
export function bindEditKeys(root, actions, signal) {
  if (!root.hasAttribute("tabindex")) root.setAttribute("tabindex", "0");
  root.setAttribute("data-lm-suppress-shortcuts", "true");
  root.addEventListener(
    "keydown",
    (event) => {
      handleEditKey(event, actions);
    },
    { signal },
  );
  root.addEventListener(
    "pointerdown",
    (event) => {
      // a control inside the view takes the focus itself (and keys still reach the root)
      const target = /** @type {Partial<Element> | null} */ (event.target);
      const control = target?.closest?.(FOCUSABLE);
      if (control && control !== root && root.contains(control)) return;
      root.focus({ preventScroll: true });
    },
    { signal },
  );
}
