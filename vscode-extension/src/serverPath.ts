// Where the tsocheck binary is: the setting, a binary bundled with the
// extension, the development build next to the extension folder, or PATH.
// Pure (file-system checks come in through `isExecutable`) so it is unit-tested.
import * as path from 'path';

export type ServerSource = 'setting' | 'bundled' | 'development' | 'PATH';

export interface ResolveInput {
  /** tsocheck.serverPath (empty or undefined = not set). */
  configured?: string | null;
  extensionPath: string;
  /** The PATH environment variable. */
  pathEnv?: string;
  /** Folders a relative tsocheck.serverPath is resolved against (first wins). */
  workspaceFolders?: string[];
  homeDir?: string;
  isExecutable(file: string): boolean;
}

export interface Resolution {
  path?: string;
  source?: ServerSource;
  /** Every place looked at, in order, for the error message. */
  tried: string[];
}

export function expandConfiguredPath(p: string, workspaceFolders: string[] = [], homeDir?: string): string {
  let out = p.trim();
  if (workspaceFolders.length > 0) out = out.replace(/\$\{workspaceFolder\}/g, workspaceFolders[0]);
  if (homeDir && (out === '~' || out.startsWith('~/'))) out = path.join(homeDir, out.slice(1));
  if (!path.isAbsolute(out) && out.includes('/') && workspaceFolders.length > 0) out = path.resolve(workspaceFolders[0], out);
  return out;
}

export function resolveServerPath(input: ResolveInput): Resolution {
  const tried: string[] = [];
  const configured = (input.configured ?? '').trim();
  if (configured) {
    const expanded = expandConfiguredPath(configured, input.workspaceFolders, input.homeDir);
    if (!expanded.includes('/')) {
      // A bare command name: look it up on PATH.
      const found = searchPath(expanded, input.pathEnv, input.isExecutable, tried);
      return found ? { path: found, source: 'setting', tried } : { tried };
    }
    tried.push(expanded);
    // An explicit setting is never silently replaced by another binary.
    return input.isExecutable(expanded) ? { path: expanded, source: 'setting', tried } : { tried };
  }
  const bundled = path.join(input.extensionPath, 'bin', 'tsocheck');
  tried.push(bundled);
  if (input.isExecutable(bundled)) return { path: bundled, source: 'bundled', tried };
  const dev = path.resolve(input.extensionPath, '..', 'build', 'lsp', 'tsocheck');
  tried.push(dev);
  if (input.isExecutable(dev)) return { path: dev, source: 'development', tried };
  const onPath = searchPath('tsocheck', input.pathEnv, input.isExecutable, tried);
  return onPath ? { path: onPath, source: 'PATH', tried } : { tried };
}

function searchPath(name: string, pathEnv: string | undefined, isExecutable: (f: string) => boolean, tried: string[]): string | undefined {
  const dirs = (pathEnv ?? '').split(path.delimiter).filter((d) => d.length > 0);
  if (dirs.length === 0) tried.push(`${name} on PATH (PATH is empty)`);
  for (const dir of dirs) {
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) {
      tried.push(candidate);
      return candidate;
    }
  }
  if (dirs.length > 0) tried.push(`${name} on PATH`);
  return undefined;
}

/** The error text shown when no binary was found. */
export function notFoundMessage(r: Resolution, configured?: string | null): string {
  const where = r.tried.join(', ');
  if (configured && configured.trim())
    return `tsocheck: the language server set in "tsocheck.serverPath" is not an executable file (${where}). ` +
      'Fix the setting or clear it to use the bundled or development build.';
  return `tsocheck: cannot find the tsocheck binary. Looked for: ${where}. ` +
    'Build it (scripts/setup.sh builds build/lsp/tsocheck), put it on PATH, or set "tsocheck.serverPath".';
}
