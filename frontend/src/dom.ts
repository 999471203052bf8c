// Tiny helpers for building DOM elements.

type Attrs = Record<string, string | undefined>;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined) continue;
    if (key === "class") element.className = value;
    else if (key === "testid") element.dataset.testid = value;
    else element.setAttribute(key, value);
  }
  element.append(...children);
  return element;
}

export function button(
  label: string | Node,
  testid: string,
  title: string,
  onClick: (event: MouseEvent) => void,
  className = "button",
): HTMLButtonElement {
  const b = el("button", { class: className, testid, title, type: "button", "aria-label": title }, label);
  b.addEventListener("click", onClick);
  return b;
}
