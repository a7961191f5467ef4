import "server-only";
import type { ModelRef } from "@/lib/model";
import { ApiError } from "../../errors";
import { arr, num, obj, str } from "../shared/values";
import type { ModelInfo } from "../types";
import type { HelloInfo } from "./process";

interface ZotModel {
  id: string;
  provider?: string;
  contextWindow?: number;
}

/**
 * What zot said of itself and its models: `hello` (version, provider, model) of the start-up check
 * and of every session's process, and the start-up check's `get_models`. zot switches models within
 * the provider it was started with only.
 */
export class ZotModels {
  hello: HelloInfo = {};
  private list: ZotModel[] = [];

  get known(): boolean {
    return this.list.length > 0;
  }

  /** `get_models`' answer. */
  read(data: unknown): void {
    this.list = arr(obj(data).models).flatMap((m) => {
      const o = obj(m);
      const id = str(o.id);
      const provider = str(o.provider);
      const contextWindow = num(o.context_window);
      return id ? [{ id, ...(provider ? { provider } : {}), ...(contextWindow ? { contextWindow } : {}) }] : [];
    });
  }

  /** What a process's `hello` said, over what was known. */
  heard(hello: HelloInfo): void {
    this.hello = { ...this.hello, ...hello };
  }

  defaultModel(): ModelRef | undefined {
    return this.hello.model
      ? { ...(this.hello.provider ? { provider: this.hello.provider } : {}), id: this.hello.model }
      : undefined;
  }

  /** 400 for a model of another provider than the one zot was started with. */
  checkProvider(model: ModelRef): void {
    const provider = this.hello.provider;
    if (provider && model.provider && model.provider !== provider) {
      throw ApiError.badRequest(
        `zot switches models within its provider (${provider}) only; add another zot backend with --provider ${model.provider} for ${model.id}`,
      );
    }
  }

  items(): { items: ModelInfo[]; default?: ModelRef } {
    const provider = this.hello.provider ?? "zot";
    const items = this.list.map(
      (m): ModelInfo => ({
        provider: m.provider ?? provider,
        id: m.id,
        label: m.id,
        ...(m.id === this.hello.model ? { isDefault: true } : {}),
        ...(m.contextWindow ? { contextWindow: m.contextWindow } : {}),
      }),
    );
    const def = this.defaultModel();
    return { items, ...(def ? { default: def } : {}) };
  }

  contextWindow(model: string | undefined): number | undefined {
    return this.list.find((m) => m.id === model)?.contextWindow;
  }
}
