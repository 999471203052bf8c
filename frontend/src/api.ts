// HTTP calls to the server's contents and kernelspec APIs (auth rides on the server's cookie).

export interface Entry {
  name: string;
  path: string;
  type: "directory" | "notebook" | "file";
  size: number | null;
  modified: string | number | null;
}

export interface Listing {
  path: string;
  entries: Entry[];
  /** The largest upload the server accepts, in bytes. */
  max_upload_bytes?: number;
}

export class ApiError extends Error {}

/** What a failed response says: the server's `{"error": ...}`, else its status line. */
export async function errorMessage(response: Response): Promise<string> {
  try {
    const data = (await response.json()) as { error?: string };
    if (data.error) return data.error;
  } catch {
    // not JSON: the status line
  }
  return `${response.status} ${response.statusText}`;
}

async function call<T>(method: string, url: string, body?: unknown): Promise<T> {
  const response = await fetch(url, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new ApiError(await errorMessage(response));
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

export function listDir(path: string): Promise<Listing> {
  return call("GET", `/api/contents?path=${encodeURIComponent(path)}`);
}

export function create(dir: string, type: "notebook" | "directory", name?: string): Promise<{ path: string }> {
  return call("POST", "/api/contents", name ? { dir, type, name } : { dir, type });
}

export function rename(path: string, newPath: string): Promise<{ path: string }> {
  return call("PATCH", "/api/contents", { path, new_path: newPath });
}

export function remove(path: string): Promise<void> {
  return call("DELETE", `/api/contents?path=${encodeURIComponent(path)}`);
}
