// KaTeX's auto-render ships without types.
declare module "katex/contrib/auto-render" {
  export default function renderMathInElement(element: HTMLElement, options?: Record<string, unknown>): void;
}
