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

/** Put `node` (already in the page) before `reference` in `parent` without losing what it holds: the
 * focus and the text selection inside it (another tab moving cells must not take the editor away from
 * someone typing, nor move their caret) and, where `moveBefore` exists (Chromium 133+, Firefox 144+),
 * the state of its iframes. */
export function moveNode(parent: Element, node: Element, reference: Element | null): void {
  const active = document.activeElement;
  const focused = active instanceof HTMLElement && node.contains(active) ? active : null;
  const selection = document.getSelection();
  const { anchorNode, anchorOffset, focusNode, focusOffset } = selection ?? {};
  const caret = anchorNode && focusNode && node.contains(anchorNode) && node.contains(focusNode);
  const moveBefore = (parent as Element & { moveBefore?: (node: Node, child: Node | null) => void }).moveBefore;
  let moved = false;
  if (typeof moveBefore === "function" && parent.isConnected && node.isConnected) {
    try {
      moveBefore.call(parent, node, reference);
      moved = true;
    } catch {
      // not movable atomically: moved the ordinary way below
    }
  }
  if (!moved) parent.insertBefore(node, reference);
  if (focused && document.activeElement !== focused) focused.focus({ preventScroll: true });
  if (caret) selection?.setBaseAndExtent(anchorNode, anchorOffset ?? 0, focusNode, focusOffset ?? 0);
}
