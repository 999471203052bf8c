// Entry point: route on location.pathname to the file browser or a notebook.

import "./styles.css";
import "./escape-command";
import "./intellisense";
import "./ghost-text/extension";
import "./settings-panel";
import "./markdown-files/paste-image";
import "./variables/panel";
import "./ask/panel";
import "./export/menu";
import { FileBrowser } from "./file-browser";
import { NotebookView } from "./notebook-view";

function decodePath(rest: string): string {
  return rest
    .split("/")
    .filter((part) => part.length > 0)
    .map(decodeURIComponent)
    .join("/");
}

function start(): void {
  const app = document.getElementById("app") ?? document.body;
  const path = location.pathname;
  if (path.startsWith("/notebooks/")) {
    new NotebookView(app, decodePath(path.slice("/notebooks/".length)));
  } else if (path.startsWith("/tree/")) {
    new FileBrowser(app, decodePath(path.slice("/tree/".length)));
  } else {
    new FileBrowser(app, "");
  }
}

start();
