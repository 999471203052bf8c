// An image pasted or dropped into a Markdown cell's editor becomes a cell attachment, as JupyterLab does
// (packages/cells/src/widget.ts, AttachmentsCell `_attachFile`): stored under a fresh name that keeps
// the file's extension, `![file name](attachment:that name)` inserted at the cursor.

import { EditorView } from "@codemirror/view";
import { registerEditorExtension, type EditorContext } from "../editor";
import { MAX_ATTACHMENT_BASE64 } from "../protocol";
import { showToast } from "../toast";

function imageFiles(items: DataTransferItemList | undefined): File[] {
  const files: File[] = [];
  for (const item of Array.from(items ?? [])) {
    if (item.kind !== "file" || !item.type.startsWith("image/")) continue;
    const file = item.getAsFile();
    if (file) files.push(file);
  }
  return files;
}

/** JupyterLab's `_generateURI`: a UUID that keeps the file's extension. */
export function attachmentName(fileName: string): string {
  const dot = fileName.lastIndexOf(".");
  return crypto.randomUUID() + (dot === -1 ? "" : fileName.slice(dot));
}

function readBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ""));
    reader.onerror = () => reject(reader.error ?? new Error("cannot read the image"));
    reader.readAsDataURL(file);
  });
}

async function attach(context: EditorContext, view: EditorView, files: File[], at?: number): Promise<void> {
  for (const file of files) {
    const data = await readBase64(file);
    if (data.length > MAX_ATTACHMENT_BASE64) {
      showToast(`${file.name || "The image"} is too large to attach (at most about 3 MB)`);
      continue;
    }
    const name = attachmentName(file.name || "image.png");
    const sent = context.connection.send({ type: "add_attachment", cell_id: context.cellId, name, mime: file.type, data });
    if (!sent) {
      showToast("Not connected: the image was not attached");
      return;
    }
    const text = `![${file.name || name}](attachment:${name})`;
    if (at === undefined) view.dispatch(view.state.replaceSelection(text));
    else view.dispatch({ changes: { from: at, insert: text }, selection: { anchor: at + text.length } });
  }
}

function pasteImages(context: EditorContext) {
  const take = (files: File[], event: Event): boolean => {
    if (context.cellType() !== "markdown" || !files.length) return false;
    event.preventDefault();
    return true;
  };
  return EditorView.domEventHandlers({
    paste(event, view) {
      const files = imageFiles(event.clipboardData?.items);
      if (!take(files, event)) return false;
      void attach(context, view, files).catch((error) => showToast(`The image was not attached: ${error}`));
      return true;
    },
    drop(event, view) {
      const files = imageFiles(event.dataTransfer?.items);
      if (!take(files, event)) return false;
      const at = view.posAtCoords({ x: event.clientX, y: event.clientY }) ?? view.state.selection.main.head;
      void attach(context, view, files, at).catch((error) => showToast(`The image was not attached: ${error}`));
      return true;
    },
  });
}

registerEditorExtension(pasteImages);
