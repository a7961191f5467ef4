/**
 * The highlight worker: tokenizes code off the main thread (./code-block.tsx sends it every block;
 * the page falls back to its own thread only when the worker cannot run). Messages: `{ id, code, lang }` in, `{ id, lines }` out — plain data,
 * `lines` null when the language is unknown or tokenizing failed.
 */
import { highlightTokens, type TokLine } from "./highlighter";

interface Request {
  id: number;
  code: string;
  lang: string;
}

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<Request>) => void) | null;
  postMessage(m: { id: number; lines: TokLine[] | null }): void;
};

scope.onmessage = (e) => {
  const { id, code, lang } = e.data;
  highlightTokens(code, lang).then(
    (lines) => scope.postMessage({ id, lines }),
    () => scope.postMessage({ id, lines: null }),
  );
};
