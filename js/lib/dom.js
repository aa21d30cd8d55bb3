// @ts-check
// Small DOM helpers the views share.

/**
 * A new element `tag` of class `className` with `attributes` set (`text` sets its text).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string} [className]
 * @param {Record<string, string>} [attributes]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function element(tag, className, attributes = {}) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  return node;
}

/** A toolbar button of class `className` showing `text`, with `title` as its tip.
 * @param {string} className @param {string} text @param {string} title */
export function button(className, text, title) {
  return element("button", className, { text, title });
}

/** Assign a property only when it changes (DOM writes are what costs when redrawing);
 * `memo` remembers what was written, as style getters return normalized text.
 * @template {object} T
 * @param {T} target
 * @param {string} key
 * @param {unknown} value
 * @param {Record<string, unknown> | null} [memo]
 */
export function set(target, key, value, memo = null) {
  if (memo) {
    if (memo[key] === value) return;
    memo[key] = value;
  } else if (/** @type {Record<string, unknown>} */ (target)[key] === value) {
    return;
  }
  /** @type {Record<string, unknown>} */ (target)[key] = value;
}

/** An option `value` (showing `label`) appended to `select`.
 * @param {HTMLSelectElement} select @param {string} value @param {string} [label] */
export function option(select, value, label = value) {
  const item = element("option", "", { value, text: label });
  select.append(item);
  return item;
}

/**
 * `fn` called `delay` ms after the last of a burst of calls, with that call's arguments;
 * `cancel()` drops a call that is waiting.
 * @template {unknown[]} A
 * @param {(...args: A) => void} fn
 * @param {number} delay
 * @returns {((...args: A) => void) & { cancel(): void }}
 */
export function debounce(fn, delay) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  /** @param {A} args */
  const call = (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), delay);
  };
  call.cancel = () => clearTimeout(timer);
  return call;
}

/** A toolbar group (the class glade-group of js/lib/view.css) holding `children`.
 * @param {...(Node | string)} children */
export function group(...children) {
  const span = element("span", "glade-group");
  span.append(...children);
  return span;
}

/** A control with its label text (class glade-label), the text first unless `after`.
 * @param {string} text @param {Node} control @param {boolean} [after] */
export function labelled(text, control, after = false) {
  const item = element("label", "glade-label");
  if (after) item.append(control, text);
  else item.append(text, control);
  return item;
}

/** Show `lines` ([key, value] pairs; an empty key makes a full-width row of class
 * `noteClass`) as a table in `tooltip`, a child of `root`, beside the pointer of `event`
 * and at least `width` px from the right edge of `root`.
 * @param {HTMLElement} tooltip
 * @param {HTMLElement} root
 * @param {{ clientX: number, clientY: number }} event
 * @param {Iterable<[string, string]>} lines
 * @param {{ keyClass: string, noteClass: string, width: number }} classes
 */
export function showLines(tooltip, root, event, lines, { keyClass, noteClass, width }) {
  const table = element("table");
  for (const [key, value] of lines) {
    const tr = element("tr");
    if (key) tr.append(element("td", keyClass, { text: key }), element("td", "", { text: value }));
    else tr.append(element("td", noteClass, { text: value, colspan: "2" }));
    table.append(tr);
  }
  tooltip.replaceChildren(table);
  const bounds = root.getBoundingClientRect();
  tooltip.style.display = "block";
  tooltip.style.left = `${Math.min(event.clientX - bounds.left + 14, bounds.width - width)}px`;
  tooltip.style.top = `${event.clientY - bounds.top + 14}px`;
}
