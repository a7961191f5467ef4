import type { Locator, Page } from "@playwright/test";

/**
 * A base for page objects whose fields are elements found by test id:
 * `class X extends byTestId({ field: "test-id" }) {}` gives `x.field` (a Locator) and `x.page`.
 * With `scope`, the other ids are looked up inside that field's element.
 */
export function byTestId<const T extends Record<string, string>>(ids: T, scope?: keyof T & string) {
  class ByTestId {
    constructor(readonly page: Page) {
      const root = scope ? page.getByTestId(ids[scope] as string) : page;
      for (const [field, id] of Object.entries(ids)) {
        Object.defineProperty(this, field, { value: field === scope ? root : root.getByTestId(id), enumerable: true });
      }
    }
  }
  return ByTestId as new (
    page: Page,
  ) => { readonly page: Page } & { readonly [K in keyof T]: Locator };
}
