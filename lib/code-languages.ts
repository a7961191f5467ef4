/**
 * Which shiki language highlights a file (by its name or extension) or a Markdown code fence (by its
 * info string). Pure.
 */

const EXT_LANG: Record<string, string> = {
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "tsx",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "jsx",
  json: "json",
  jsonc: "jsonc",
  json5: "json5",
  jsonl: "json",
  md: "markdown",
  markdown: "markdown",
  mdx: "mdx",
  py: "python",
  pyi: "python",
  rb: "ruby",
  rs: "rust",
  go: "go",
  java: "java",
  kt: "kotlin",
  kts: "kotlin",
  swift: "swift",
  scala: "scala",
  dart: "dart",
  c: "c",
  h: "c",
  cc: "cpp",
  cpp: "cpp",
  cxx: "cpp",
  hpp: "cpp",
  hh: "cpp",
  m: "objective-c",
  cs: "csharp",
  fs: "fsharp",
  php: "php",
  lua: "lua",
  r: "r",
  pl: "perl",
  jl: "julia",
  ex: "elixir",
  exs: "elixir",
  erl: "erlang",
  hs: "haskell",
  clj: "clojure",
  ml: "ocaml",
  zig: "zig",
  nim: "nim",
  v: "v",
  sol: "solidity",
  sh: "bash",
  bash: "bash",
  zsh: "bash",
  fish: "fish",
  ps1: "powershell",
  bat: "bat",
  cmd: "bat",
  yml: "yaml",
  yaml: "yaml",
  toml: "toml",
  ini: "ini",
  cfg: "ini",
  conf: "ini",
  env: "dotenv",
  css: "css",
  scss: "scss",
  sass: "sass",
  less: "less",
  html: "html",
  htm: "html",
  xml: "xml",
  svg: "xml",
  plist: "xml",
  vue: "vue",
  svelte: "svelte",
  astro: "astro",
  sql: "sql",
  graphql: "graphql",
  gql: "graphql",
  prisma: "prisma",
  proto: "proto",
  tf: "hcl",
  hcl: "hcl",
  nix: "nix",
  diff: "diff",
  patch: "diff",
  dockerfile: "docker",
  makefile: "make",
  mk: "make",
  cmake: "cmake",
  gradle: "groovy",
  groovy: "groovy",
  tex: "latex",
  vim: "viml",
  el: "elisp",
  lisp: "lisp",
  scm: "scheme",
  rkt: "racket",
};

const NAME_LANG: Record<string, string> = {
  dockerfile: "docker",
  makefile: "make",
  gnumakefile: "make",
  "cmakelists.txt": "cmake",
  gemfile: "ruby",
  rakefile: "ruby",
  justfile: "just",
  ".bashrc": "bash",
  ".zshrc": "bash",
  ".profile": "bash",
  ".gitignore": "ignore",
  ".dockerignore": "ignore",
  ".npmrc": "ini",
  ".editorconfig": "ini",
  "go.mod": "go",
  ".env": "dotenv",
};

/** The shiki language for a file path, from its name or extension; undefined when unknown. */
export function guessLang(path: string | undefined): string | undefined {
  if (!path) return undefined;
  const base = (path.split(/[\\/]/).pop() ?? "").toLowerCase();
  if (!base) return undefined;
  const byName = NAME_LANG[base];
  if (byName) return byName;
  if (base.startsWith(".env")) return "dotenv";
  if (base.startsWith("dockerfile")) return "docker";
  const dot = base.lastIndexOf(".");
  if (dot < 0) return undefined;
  return EXT_LANG[base.slice(dot + 1)];
}

const FENCE_ALIAS: Record<string, string> = {
  sh: "bash",
  shell: "bash",
  zsh: "bash",
  console: "shellsession",
  shellsession: "shellsession",
  ts: "typescript",
  js: "javascript",
  py: "python",
  rb: "ruby",
  rs: "rust",
  yml: "yaml",
  md: "markdown",
  "c++": "cpp",
  "c#": "csharp",
  cs: "csharp",
  golang: "go",
  dockerfile: "docker",
  text: "",
  txt: "",
  plain: "",
  plaintext: "",
  output: "",
  log: "",
  "": "",
};

/** The shiki language for a Markdown fence's info string (`ts`, `language-py`, `text` → none). */
export function normalizeLang(lang: string | undefined): string | undefined {
  if (!lang) return undefined;
  const l =
    lang
      .trim()
      .toLowerCase()
      .replace(/^language-/, "")
      .split(/[\s{]/)[0] ?? "";
  if (l in FENCE_ALIAS) return FENCE_ALIAS[l] || undefined;
  return l || undefined;
}
