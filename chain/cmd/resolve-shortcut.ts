// A module-resolution shortcut for `chaind` run from the source tree (chain/cmd/chaind.mjs installs it before the
// CLI loads). A query loads ~160 ES modules, and Node's default resolver spends more on each relative import than
// on compiling the module out of the compile cache: it builds URLs and paths, stats the file, takes its real path
// and walks up to the package.json that decides its format. This hook answers a relative import (`./x.ts`,
// `../y.js`) itself, as `new URL(specifier, parent)` with the format Node gave the last file it resolved with the
// same extension in the same directory: the package scope, and so the format, is the same for every file of a
// directory. Anything else — bare names, `node:` built-ins, a directory or extension not seen yet, specifiers with
// a query, fragment or escape — goes to Node's resolver, whose answers teach the hook. A query's CPU went from
// ~170 to ~135 ms (docs/PERFORMANCE.md, "Start-up at the CLI and at the upgrade").
//
// What it skips, knowingly: the existence check (a missing relative import then fails as the file's read, ENOENT
// naming the path, instead of ERR_MODULE_NOT_FOUND) and the real path (the source tree holds no symlinked source
// files; node_modules, a symlink in a git worktree, is reached through bare names, which Node still resolves).
// Bare names are remembered per process for importers among the project's own files, which all resolve them alike. Only
// ES imports take the shortcut; require() is resolved by Node as before.
//
// A directory not seen yet, inside the project and outside node_modules, whose walk up to the project's package.json
// meets no other package.json, is in the project's own package scope: when that package.json names its "type" (so
// no file's format is detected from its syntax), a file there gets the format Node gave the same extension anywhere
// else in that scope. A query imports from ~27 such directories, each of which cost Node's resolver 0.1–0.3 ms; the
// walk costs a stat per directory, once.
import { registerHooks } from "node:module";

// Looked up, not imported: one ES module job fewer before the shortcut is in place, and node:fs's facade would load a
// dozen built-in modules.
const { readFileSync, statSync } = process.getBuiltinModule("node:fs");
const { fileURLToPath } = process.getBuiltinModule("node:url");

type ResolveResult = { url: string; format?: string | null };

/**
 * Installs the shortcut for the rest of the process (only imports resolved after this call use it). `bundle` names
 * bare imports to load from a bundle (chain/cmd/dependency-bundle.ts), for every ES importer; its files are asked
 * for at the first such import, and when it has none the names resolve as usual.
 */
export function shortcutRelativeResolution(
  /** The project's directory as a file URL ending in "/": bare names imported from its own files are remembered. */
  projectUrl: string,
  bundle?: { names: ReadonlySet<string>; urlFor(specifier: string, parentUrl: string): string | undefined },
): void {
  // `dirname/.ext` → the format Node gave a file there; e.g. "file:///repo/src/cli/.ts" → "module-typescript".
  const formatByDirAndExtension = new Map<string, string>();
  const bareNames = new Map<string, ResolveResult>();
  const projectScope = new ProjectScope(projectUrl);
  // ".ts" → the format Node gave a file of the project's own package scope with that extension.
  const formatInProjectScope = new Map<string, string>();
  const learn = (result: ResolveResult): void => {
    if (typeof result.format === "string" && result.url.startsWith("file:")) {
      const key = dirAndExtension(result.url);
      formatByDirAndExtension.set(key, result.format);
      if (projectScope.holds(key)) formatInProjectScope.set(extensionOf(key), result.format);
    }
  };
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const parent = context.parentURL;
      // require() calls (CommonJS, or a package's require condition) are left to Node: its CommonJS loader
      // takes the format from the file itself, and the start-up cost is in the ES imports.
      if (parent?.startsWith("file:") && !context.conditions.includes("require")) {
        const bundled = bundle?.names.has(specifier) ? bundle.urlFor(specifier, parent) : undefined;
        if (bundled !== undefined) return { url: bundled, format: "module", shortCircuit: true };
        if (isPlainRelative(specifier)) {
          const url = new URL(specifier, parent).href;
          const key = dirAndExtension(url);
          let format = formatByDirAndExtension.get(key);
          if (format === undefined && projectScope.holds(key)) {
            format = formatInProjectScope.get(extensionOf(key));
            if (format !== undefined) formatByDirAndExtension.set(key, format);
          }
          if (format !== undefined) return { url, format, shortCircuit: true };
        } else if (
          !specifier.startsWith("node:") &&
          parent.startsWith(projectUrl) &&
          !parent.includes("/node_modules/")
        ) {
          const key = `${specifier}\0${context.conditions.join(",")}`;
          const known = bareNames.get(key);
          if (known !== undefined) return { ...known, shortCircuit: true };
          const result = nextResolve(specifier, context);
          bareNames.set(key, { url: result.url, format: result.format });
          learn(result);
          return result;
        }
      }
      const result = nextResolve(specifier, context);
      learn(result);
      return result;
    },
  });
}

function isPlainRelative(specifier: string): boolean {
  return (specifier.startsWith("./") || specifier.startsWith("../")) && !/[?#%\\]/.test(specifier);
}

/** "file:///a/b/c.ts" → "file:///a/b/.ts"; a name without an extension keeps its own key (never matches a file). */
function dirAndExtension(url: string): string {
  const slash = url.lastIndexOf("/");
  const dot = url.lastIndexOf(".");
  return dot > slash ? url.slice(0, slash + 1) + url.slice(dot) : url;
}

/** The extension part of a {@link dirAndExtension} key: "file:///a/b/.ts" → ".ts" (the key itself when it has none). */
function extensionOf(key: string): string {
  return key.slice(key.lastIndexOf("/") + 1);
}

/**
 * Which directories are in the project's own package scope: inside the project, outside node_modules, with no
 * package.json between them and the project's, whose "type" is named. Each directory is looked at once.
 */
class ProjectScope {
  readonly #root: string;
  #typed: boolean | undefined;
  /** Directory URL (ending in "/") → whether it is in the project's scope. */
  readonly #dirs = new Map<string, boolean>();

  constructor(projectUrl: string) {
    this.#root = projectUrl;
  }

  /** Whether the directory of `key` (a {@link dirAndExtension} key or a file URL) is in the project's scope. */
  holds(key: string): boolean {
    const dir = key.slice(0, key.lastIndexOf("/") + 1);
    if (!dir.startsWith(this.#root) || dir.includes("/node_modules/") || !this.#rootTyped()) return false;
    return this.#inScope(dir);
  }

  #inScope(dir: string): boolean {
    if (dir === this.#root) return true;
    const known = this.#dirs.get(dir);
    if (known !== undefined) return known;
    const parent = dir.slice(0, dir.lastIndexOf("/", dir.length - 2) + 1);
    const inScope = !hasFile(`${dir}package.json`) && this.#inScope(parent);
    this.#dirs.set(dir, inScope);
    return inScope;
  }

  /** The project's package.json names "module" or "commonjs" as its type (else formats may be detected per file). */
  #rootTyped(): boolean {
    if (this.#typed === undefined) {
      try {
        const { type } = JSON.parse(readFileSync(fileURLToPath(`${this.#root}package.json`), "utf8")) as {
          type?: unknown;
        };
        this.#typed = type === "module" || type === "commonjs";
      } catch {
        this.#typed = false;
      }
    }
    return this.#typed;
  }
}

/** Whether something is at file URL `url` (a package.json: Node reads it whatever it is). */
function hasFile(url: string): boolean {
  try {
    return statSync(fileURLToPath(url), { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true;
  }
}
