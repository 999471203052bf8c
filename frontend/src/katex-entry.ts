// The KaTeX bundle (build/katex.js, with build/katex.css and its fonts): math.ts loads it the first time a
// page shows math, so the main bundle does not carry it.
import katex from "katex";
import "katex/dist/katex.min.css";

export default katex;
