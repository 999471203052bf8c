// Transient messages (server errors, failed requests) in the corner of the page.

let container: HTMLElement | null = null;

export function showToast(message: string, kind: "error" | "info" = "error", ms = 6000): void {
  if (!container) {
    container = document.createElement("div");
    container.className = "toasts";
    document.body.appendChild(container);
  }
  const toast = document.createElement("div");
  toast.className = `toast toast-${kind}`;
  toast.dataset.testid = "toast";
  toast.setAttribute("role", kind === "error" ? "alert" : "status");
  toast.textContent = message;
  toast.addEventListener("click", () => toast.remove());
  container.appendChild(toast);
  window.setTimeout(() => toast.remove(), ms);
}
