// A plotly figure under the dark theme: a figure drawn with plotly's default look (its `plotly` template, as
// plotly.py embeds it, or no template at all) gets the colours of plotly.py's `plotly_dark` template
// instead; a figure that chose its own template or colours keeps them. Pure: the unit tests run it.

type Json = Record<string, unknown>;

const INK = "#f2f5fa";
const PAPER = "rgb(17,17,17)";
const GRID = "#283442";
const LINE = "#506784";

const axis = { gridcolor: GRID, linecolor: LINE, zerolinecolor: GRID, ticks: "", zerolinewidth: 2 };
const sceneAxis = { ...axis, backgroundcolor: PAPER, showbackground: true, gridwidth: 2 };

/** plotly_dark's layout colours (plotly.py's templates/plotly_dark.json, abridged to the colours). */
export const DARK_LAYOUT: Json = {
  paper_bgcolor: PAPER,
  plot_bgcolor: PAPER,
  font: { color: INK },
  xaxis: axis,
  yaxis: axis,
  scene: { xaxis: sceneAxis, yaxis: sceneAxis, zaxis: sceneAxis },
  polar: { bgcolor: PAPER, angularaxis: { gridcolor: GRID, linecolor: LINE, ticks: "" }, radialaxis: { gridcolor: GRID, linecolor: LINE, ticks: "" } },
  ternary: { bgcolor: PAPER, aaxis: axis, baxis: axis, caxis: axis },
  geo: { bgcolor: PAPER, landcolor: PAPER, subunitcolor: LINE, lakecolor: PAPER, showlakes: true, showland: true },
  annotationdefaults: { arrowcolor: INK, arrowhead: 0, arrowwidth: 1 },
  shapedefaults: { line: { color: INK } },
  updatemenudefaults: { bgcolor: LINE, borderwidth: 0 },
  sliderdefaults: { bgcolor: "#C8D4E3", bordercolor: PAPER, borderwidth: 1, tickwidth: 0 },
  hoverlabel: { align: "left" },
  mapbox: { style: "dark" },
};

const DARK_DATA: Json = {
  table: [{ cells: { fill: { color: LINE }, line: { color: PAPER } }, header: { fill: { color: "#2a3f5f" }, line: { color: PAPER } } }],
};

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** plotly.py's default template says so by its light blue plot background. */
function isDefaultTemplate(template: unknown): boolean {
  if (template === undefined) return true;
  if (!isObject(template) || !isObject(template.layout)) return false;
  return String(template.layout.plot_bgcolor).toUpperCase() === "#E5ECF6";
}

/** `layout` for drawing under `theme`: in dark, the default template's colours become plotly_dark's. */
export function themedLayout(layout: Json, theme: "light" | "dark"): Json {
  if (theme !== "dark" || !isDefaultTemplate(layout.template)) return layout;
  const template = isObject(layout.template) ? layout.template : {};
  const data = isObject(template.data) ? template.data : {};
  const own = isObject(template.layout) ? template.layout : {};
  return { ...layout, template: { data: { ...data, ...DARK_DATA }, layout: { ...own, ...DARK_LAYOUT } } };
}
