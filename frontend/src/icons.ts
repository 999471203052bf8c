// Small inline SVG icons (no icon font or emoji needed; they inherit the text colour).

const PATHS: Record<string, string> = {
  run: "M4 3l9 5-9 5z",
  up: "M8 3l5 6H9v4H7V9H3z",
  down: "M8 13l5-6H9V3H7v4H3z",
  plus: "M7 3h2v4h4v2H9v4H7V9H3V7h4z",
  trash: "M5 2h6v1h3v2H2V3h3zM3 6h10l-1 9H4z",
  folder: "M1 3h5l2 2h7v9H1z",
  notebook: "M3 1h9l2 2v12H3zM5 4h6v1H5zM5 7h6v1H5zM5 10h4v1H5z",
  file: "M3 1h6l4 4v10H3zM9 1v4h4",
  spark: "M8 1l1.6 4.4L14 7l-4.4 1.6L8 13l-1.6-4.4L2 7l4.4-1.6zM13 11l.7 1.3L15 13l-1.3.7L13 15l-.7-1.3L11 13l1.3-.7z",
  ghost: "M8 1a6 6 0 0 0-6 6v8l2-1.5L6 15l2-1.5 2 1.5 2-1.5 2 1.5V7a6 6 0 0 0-6-6zM6 5a1 1 0 1 1 0 2 1 1 0 0 1 0-2zm4 0a1 1 0 1 1 0 2 1 1 0 0 1 0-2z",
  clear: "M2 2h12v12H2zm1 1v10h10V3zM5 4.3l3 3 3-3 .7.7-3 3 3 3-.7.7-3-3-3 3-.7-.7 3-3-3-3z",
  keyboard: "M1 4h14v9H1zM3 6v1h1V6zm2 0v1h1V6zm2 0v1h1V6zm2 0v1h1V6zm2 0v1h2V6zM3 8v1h2V8zm3 0v1h1V8zm2 0v1h1V8zm2 0v1h3V8zM4 10v1h8v-1z",
};

/** Built icons, cloned for every use (a notebook of 500 cells shows thousands). */
const built = new Map<string, SVGSVGElement>();

export function icon(name: keyof typeof PATHS | string, size = 14): SVGSVGElement {
  const key = `${name}:${size}`;
  let svg = built.get(key);
  if (!svg) {
    svg = draw(name, size);
    built.set(key, svg);
  }
  return svg.cloneNode(true) as SVGSVGElement;
}

function draw(name: string, size: number): SVGSVGElement {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("width", String(size));
  svg.setAttribute("height", String(size));
  svg.setAttribute("aria-hidden", "true");
  svg.classList.add("icon");
  const path = document.createElementNS(ns, "path");
  path.setAttribute("d", PATHS[name] ?? "");
  path.setAttribute("fill", "currentColor");
  path.setAttribute("fill-rule", "evenodd");
  svg.appendChild(path);
  return svg;
}
