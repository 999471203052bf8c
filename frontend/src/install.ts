// Missing packages, one click (as marimo does): an "Install <package>" button beside the Fix button on a
// ModuleNotFoundError, when the kernel can install (a local Python kernel with pip or uv; the server says
// so in `KernelInfo.can_install`). The server runs the kernel's own pip (session/install.py) and streams
// its output here, to every tab; once it worked, a button runs the cell again.

import { button, el } from "./dom";
import type { InstallProgress, Output } from "./protocol";

/** Import names whose distribution on PyPI is called something else (the common ones). */
export const DISTRIBUTIONS: Readonly<Record<string, string>> = {
  sklearn: "scikit-learn",
  skimage: "scikit-image",
  cv2: "opencv-python",
  PIL: "pillow",
  yaml: "PyYAML",
  bs4: "beautifulsoup4",
  dateutil: "python-dateutil",
  dotenv: "python-dotenv",
  docx: "python-docx",
  pptx: "python-pptx",
  magic: "python-magic",
  slugify: "python-slugify",
  jose: "python-jose",
  multipart: "python-multipart",
  jwt: "PyJWT",
  git: "GitPython",
  github: "PyGithub",
  Crypto: "pycryptodome",
  Cryptodome: "pycryptodomex",
  OpenSSL: "pyOpenSSL",
  nacl: "PyNaCl",
  serial: "pyserial",
  usb: "pyusb",
  zmq: "pyzmq",
  fitz: "PyMuPDF",
  pypdf2: "PyPDF2",
  MySQLdb: "mysqlclient",
  psycopg2: "psycopg2-binary",
  Bio: "biopython",
  umap: "umap-learn",
  faiss: "faiss-cpu",
  osgeo: "GDAL",
  mpl_toolkits: "matplotlib",
  pylab: "matplotlib",
  IPython: "ipython",
  pkg_resources: "setuptools",
  distutils: "setuptools",
  attr: "attrs",
  google: "protobuf",
  grpc: "grpcio",
  gi: "PyGObject",
  wx: "wxPython",
  win32api: "pywin32",
  win32com: "pywin32",
  telegram: "python-telegram-bot",
  discord: "discord.py",
  ruamel: "ruamel.yaml",
  Levenshtein: "levenshtein",
  speech_recognition: "SpeechRecognition",
  sentence_transformers: "sentence-transformers",
  llama_cpp: "llama-cpp-python",
  tensorflow_datasets: "tensorflow-datasets",
  community: "python-louvain",
  igraph: "igraph",
  markdown: "Markdown",
  lxml: "lxml",
};

/** Modules that come with Python or the system, not from PyPI: no button. */
const NOT_ON_PYPI = new Set(["tkinter", "turtle", "idlelib", "ensurepip", "venv", "lib2to3", "apt", "dbus"]);

/** The module a ModuleNotFoundError output names (its top-level package), or null. */
export function missingModule(output: Output): string | null {
  if (output.output_type !== "error" || output.ename !== "ModuleNotFoundError") return null;
  const name = /No module named '([^']+)'/.exec(output.evalue ?? "")?.[1];
  const top = name?.split(".")[0] ?? "";
  return /^[A-Za-z][A-Za-z0-9_]*$/.test(top) ? top : null; // `_ctypes` & co. are parts of Python itself
}

/** The distribution to install for import name `module`, or null when pip cannot provide it. */
export function distributionFor(module: string): string | null {
  if (NOT_ON_PYPI.has(module)) return null;
  return DISTRIBUTIONS[module] ?? module;
}

/** One cell's install: the button on its error output, and the progress under it. */
export class InstallPanel {
  /** The log, status and re-run button; moved under the error's buttons at each render. */
  readonly element: HTMLElement;
  private readonly status: HTMLElement;
  private readonly log: HTMLPreElement;
  private readonly details: HTMLDetailsElement;
  private readonly rerunButton: HTMLButtonElement;
  private package: string | null = null;
  private done = true;

  constructor(
    private readonly request: (distribution: string) => void,
    private readonly rerun: () => void,
  ) {
    this.status = el("span", { class: "install-status", testid: "install-status" });
    this.log = el("pre", { class: "install-log", testid: "install-log" });
    this.details = el("details", { class: "install-details" }, el("summary", {}, "Installer output"), this.log);
    this.rerunButton = button("▶ Run the cell again", "install-rerun", "Run this cell again with the package installed", (event) => {
      event.stopPropagation();
      this.reset();
      this.rerun();
    }, "button install-rerun");
    this.element = el("div", { class: "install-panel", testid: "install-panel" }, el("div", { class: "install-head" }, this.status, this.rerunButton), this.details);
    this.element.hidden = true;
  }

  /** Add "Install <package>" to `row` (the error output's buttons) when `output` names a missing module. */
  decorate(row: HTMLElement, output: Output): void {
    const module = missingModule(output);
    const distribution = module && distributionFor(module);
    if (!distribution) return;
    const install = button(`⬇ Install ${distribution}`, "install-button",
      `pip install ${distribution} into this kernel's Python, then offer to run the cell again`, (event) => {
        event.stopPropagation();
        this.start(distribution);
      }, "button install-button");
    install.dataset.package = distribution;
    row.append(install, this.element);
    this.syncButtons();
  }

  /** Progress from the server (this tab's install or another tab's). */
  update(message: InstallProgress): void {
    this.package = message.package;
    this.done = message.done;
    this.element.hidden = false;
    this.element.dataset.state = !message.done ? "running" : message.ok ? "ok" : "failed";
    this.status.textContent = !message.done
      ? `Installing ${message.package}…`
      : message.ok
        ? `✓ Installed ${message.package}.`
        : `✗ Could not install ${message.package}.`;
    this.rerunButton.hidden = !(message.done && message.ok);
    const follow = this.log.scrollTop + this.log.clientHeight >= this.log.scrollHeight - 4;
    this.log.textContent = message.text;
    if (follow) this.log.scrollTop = this.log.scrollHeight;
    this.details.open = !(message.done && message.ok); // pip's error stays in view; a success folds it
    this.syncButtons();
  }

  private start(distribution: string): void {
    this.update({ type: "install_progress", ref: null, cell_id: "", package: distribution, text: "", done: false, ok: false });
    this.request(distribution);
  }

  private reset(): void {
    this.package = null;
    this.done = true;
    this.element.hidden = true;
    this.syncButtons();
  }

  /** The Install buttons beside the panel (in the current render): off while installing, gone once done. */
  private syncButtons(): void {
    const row = this.element.parentElement;
    for (const b of row ? row.querySelectorAll<HTMLButtonElement>(".install-button") : []) {
      b.disabled = !this.done;
      b.hidden = this.done && this.package === b.dataset.package && this.element.dataset.state === "ok";
    }
  }
}
