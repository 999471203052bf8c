// A classic script in the page's <head>: opens the notebook's websocket before the main bundle has
// loaded (src/early-socket.ts).
import { openEarly } from "./early-socket";

openEarly();
