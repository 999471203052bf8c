// The banner of a notebook this tab can no longer save (its file was deleted, or the server closed it):
// it says so plainly, and the cells stay on the page, read-only, so their text can still be copied, one
// selection at a time or all at once.

import { el } from "./dom";

export interface ClosedNotice {
  testid: string;
  heading: string;
  detail: string;
  /** Every cell's text as the tab has it now (unsaved edits included). */
  allText(): string;
}

export function closedBanner(notice: ClosedNotice): HTMLElement {
  const copy = el("button", { type: "button", class: "closed-copy", testid: "copy-all-cells" }, "Copy all cells");
  const banner = el(
    "div",
    { class: "closed-banner", testid: notice.testid, role: "alert" },
    el("strong", {}, notice.heading),
    el("span", {}, ` ${notice.detail}`),
    copy,
  );
  copy.addEventListener("click", () => {
    const text = notice.allText();
    const shown = () => {
      copy.textContent = "Copied";
      window.setTimeout(() => (copy.textContent = "Copy all cells"), 2000);
    };
    // The clipboard API needs a secure context (https or localhost); elsewhere the text is shown, selected.
    if (navigator.clipboard?.writeText) navigator.clipboard.writeText(text).then(shown, () => showText(banner, text));
    else showText(banner, text);
  });
  return banner;
}

function showText(banner: HTMLElement, text: string): void {
  let area = banner.querySelector("textarea");
  if (!area) {
    area = el("textarea", { class: "closed-text", testid: "all-cells-text", readonly: "", rows: "8",
      "aria-label": "All cells' text" });
    banner.append(area);
  }
  area.value = text;
  area.focus();
  area.select();
}
