import "server-only";
import type { PresetTemplate } from "../shared/kind";

/** zot or its successor terva on PATH (docs/backends/zot.md): its provider and model come from its own configuration unless given here. */
export const ZOT_PRESETS: PresetTemplate[] = [
  {
    id: "terva",
    kind: "zot",
    label: "terva",
    description:
      "terva rpc (github.com/terva-sh/terva, zot's successor, the same wire): one process per session, your terva credentials. Add --provider and --model to pick the model; put provider keys in the environment.",
    command: ["terva", "rpc"],
  },
  {
    id: "zot",
    kind: "zot",
    label: "zot",
    description:
      "zot rpc (github.com/patriceckhart/zot): one process per session, your zot credentials. Add --provider and --model to pick the model; put provider keys in the environment.",
    command: ["zot", "rpc"],
  },
];
