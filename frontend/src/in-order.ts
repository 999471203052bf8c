// Messages applied in the order they came, where one may first wait for something (a snapshot for its
// Markdown cells' language chunk): those behind it wait too, and nothing overtakes.

export class InOrder<T> {
  private held: Promise<void> | null = null;

  constructor(
    private readonly apply: (item: T) => void,
    private readonly report: (error: unknown) => void = (error) => console.error(error),
  ) {}

  /** Apply `item` now, or after `wait` (whatever it settles to) and after the items held before it. */
  push(item: T, wait: Promise<unknown> | null = null): void {
    const before = this.held ?? wait;
    if (before === null) {
      this.apply(item);
      return;
    }
    const next = (this.held ? before.then(() => wait) : before)
      .catch(() => undefined)
      .then(() => this.apply(item))
      .catch(this.report);
    this.held = next;
    void next.finally(() => {
      if (this.held === next) this.held = null;
    });
  }

  /** Whether items are waiting. */
  get waiting(): boolean {
    return this.held !== null;
  }
}
