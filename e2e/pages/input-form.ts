import type { Locator, Page } from "@playwright/test";

/** Page object for an input form (components/interrupts/input-form.tsx), in the timeline or the inbox. */
export class InputFormPage {
  readonly root: Locator;
  constructor(page: Page, within?: Locator) {
    this.root = (within ?? page.locator("body")).getByTestId("input-form");
  }
  field(name: string): Locator {
    return this.root.locator(`[data-testid="input-field"][data-name="${name}"]`);
  }
  /** The field's control (input or select). */
  control(name: string): Locator {
    return this.field(name).locator("input, select").first();
  }
  error(name: string): Locator {
    return this.field(name).getByTestId("input-field-error");
  }
  get submit(): Locator {
    return this.root.getByTestId("input-submit");
  }
  get decline(): Locator {
    return this.root.getByTestId("input-decline");
  }
  get cancel(): Locator {
    return this.root.getByTestId("input-cancel");
  }
}
