// The plotly renderer bundle with the full plotly.js (loaded lazily, only by frames whose figure has a
// trace outside the cartesian set, and by HTML that calls Plotly).

import Plotly from "plotly.js-dist-min";
import { install } from "./plotly-draw";

install(Plotly);
