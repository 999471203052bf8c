// Images: SVG as an <img> (its scripts never run there), bitmaps from base64; Jupyter's width/height
// metadata is honoured.

import { joinText } from "./text";
import type { RenderContext } from "./registry";

export const IMAGE_MIMES = ["image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp"] as const;

export function renderImage({ mime, value, metadata }: RenderContext): HTMLElement {
  const img = document.createElement("img");
  if (mime === "image/svg+xml") {
    img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(joinText(value))}`;
    img.alt = "SVG output";
  } else {
    img.src = `data:${mime};base64,${joinText(value).replace(/\s+/g, "")}`;
    img.alt = "image output";
  }
  const size = metadata[mime];
  if (typeof size === "object" && size !== null) {
    const { width, height } = size as { width?: unknown; height?: unknown };
    if (typeof width === "number") img.width = width;
    if (typeof height === "number") img.height = height;
  }
  // matplotlib's `needs_background` (a transparent figure drawn for one background): a light or dark
  // backdrop under the other theme, as JupyterLab's rendermime renderers.ts (renderImage) does.
  const own = (typeof size === "object" && size !== null ? size : {}) as { needs_background?: unknown };
  const needs = own.needs_background ?? metadata.needs_background;
  if (needs === "light" || needs === "dark") img.classList.add(`needs-${needs}-background`);
  return img;
}
