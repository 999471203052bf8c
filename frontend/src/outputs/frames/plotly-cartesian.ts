// The plotly renderer bundle with plotly.js's cartesian traces only (bar, box, contour, heatmap,
// histogram, histogram2d(contour), image, pie, scatter, scatterternary, violin): most figures, at a
// third of the full bundle's size and parse time.

import Plotly from "plotly.js-cartesian-dist-min";
import { install } from "./plotly-draw";

install(Plotly);
