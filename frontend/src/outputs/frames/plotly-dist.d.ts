// plotly.js-cartesian-dist-min ships no types: it is plotly.js with fewer traces.
declare module "plotly.js-cartesian-dist-min" {
  import Plotly from "plotly.js-dist-min";
  export default Plotly;
}
