// Calling-context tree view (grows into the full CCT view).
import { formatValue } from "../lib/format.js";

function render({ model, el }) {
  const names = model.get("names") ?? [];
  const values = model.get("values") ?? [];
  const list = document.createElement("ul");
  names.forEach((name, i) => {
    const item = document.createElement("li");
    item.textContent = `${formatValue(values[i])} ${name}`;
    list.appendChild(item);
  });
  el.appendChild(list);
}

export default { render };
