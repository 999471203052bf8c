// Downloads and exports as files: fetched (so a failure shows the server's reason, not a saved error
// page), then saved under the name the server gives in Content-Disposition.

import { ApiError, errorMessage } from "../api";

export type ExportFormat = "ipynb" | "py" | "html" | "pdf";

export const EXPORT_FORMATS: { format: ExportFormat; label: string }[] = [
  { format: "ipynb", label: "Notebook (.ipynb)" },
  { format: "py", label: "Python script (.py, # %% cells)" },
  { format: "html", label: "HTML (.html, opens offline)" },
  { format: "pdf", label: "PDF (.pdf)" },
];

function encodedPath(path: string): string {
  return encodeURIComponent(path);
}

export function exportUrl(path: string, format: ExportFormat): string {
  return `/api/export?path=${encodedPath(path)}&to=${format}`;
}

export function fileUrl(path: string): string {
  return `/api/files?path=${encodedPath(path)}`;
}

/** The file name in a Content-Disposition header (RFC 6266: `filename*` wins over `filename`). */
export function dispositionName(header: string | null, fallback: string): string {
  if (!header) return fallback;
  const extended = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(header);
  if (extended) {
    try {
      return decodeURIComponent(extended[1].trim());
    } catch {
      // a malformed escape: use the plain name
    }
  }
  const plain = /filename\s*=\s*"([^"]*)"/i.exec(header) ?? /filename\s*=\s*([^;]+)/i.exec(header);
  return plain ? plain[1].trim() : fallback;
}

/** Fetch `url` and save what it returns as a file; throws ApiError with the server's message. */
export async function saveFrom(url: string, fallbackName: string): Promise<string> {
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok) throw new ApiError(await errorMessage(response));
  const name = dispositionName(response.headers.get("Content-Disposition"), fallbackName);
  const blob = await response.blob();
  const href = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = href;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(href), 60_000);
  return name;
}
