// Uploads into the file browser's folder: a button (a file picker) and drag-and-drop onto the list.
// Each file is sent as it is (PUT /api/files?path=DIR/NAME); one larger than the server's limit is refused
// here with the same message the server would give, without sending it.

import { ApiError, errorMessage } from "../api";
import { button, el } from "../dom";
import { showToast } from "../toast";

export interface UploadTarget {
  dir: string;
  /** The server's limit in bytes (from the listing), or null while unknown. */
  limit(): number | null;
  /** Called after the files are sent (the listing shows them). */
  done(): Promise<void>;
}

function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.round(bytes / 1024)} KB`;
}

export function tooLarge(name: string, limit: number): string {
  return `${name} is too large: uploads are limited to ${sizeText(limit)} (start ghostbook with --max-upload-mb to change it)`;
}

async function uploadOne(dir: string, file: File, limit: number | null): Promise<void> {
  if (limit !== null && file.size > limit) throw new Error(tooLarge(file.name, limit));
  const path = dir ? `${dir}/${file.name}` : file.name;
  const response = await fetch(`/api/files?path=${encodeURIComponent(path)}`, {
    method: "PUT",
    credentials: "same-origin",
    headers: { "Content-Type": "application/octet-stream" },
    body: file,
  });
  if (!response.ok) throw new ApiError(await errorMessage(response));
}

export async function uploadFiles(target: UploadTarget, files: File[]): Promise<void> {
  let sent = 0;
  for (const file of files) {
    try {
      await uploadOne(target.dir, file, target.limit());
      sent++;
    } catch (error) {
      showToast(`Upload failed: ${(error as Error).message}`);
    }
  }
  if (sent) showToast(sent === 1 ? `Uploaded ${files.length === 1 ? files[0].name : "1 file"}` : `Uploaded ${sent} files`, "info", 3000);
  await target.done();
}

/** The Upload button (with its hidden file input), and drag-and-drop onto `dropZone`. */
export function installUpload(dropZone: HTMLElement, target: UploadTarget): HTMLElement {
  const input = el("input", { type: "file", multiple: "", class: "upload-input", testid: "upload-input", "aria-label": "Files to upload" });
  input.addEventListener("change", () => {
    const files = [...(input.files ?? [])];
    input.value = "";
    if (files.length) void uploadFiles(target, files);
  });
  const hasFiles = (event: DragEvent) => [...(event.dataTransfer?.types ?? [])].includes("Files");
  dropZone.addEventListener("dragover", (event) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    if (event.dataTransfer) event.dataTransfer.dropEffect = "copy";
    dropZone.dataset.dropping = "true";
  });
  dropZone.addEventListener("dragleave", (event) => {
    if (!dropZone.contains(event.relatedTarget as Node | null)) delete dropZone.dataset.dropping;
  });
  dropZone.addEventListener("drop", (event) => {
    delete dropZone.dataset.dropping;
    if (!hasFiles(event)) return;
    event.preventDefault();
    const files = [...(event.dataTransfer?.files ?? [])];
    if (files.length) void uploadFiles(target, files);
  });
  return el("span", {}, button("Upload", "upload-files", "Upload files here (or drop them on the list)", () => input.click()), input);
}
