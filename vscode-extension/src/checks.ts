// The check functions of a document as the server's frontend found them
// (`tsocheck/checks`), and which one a cursor line is in. Pure.

export interface ServerCheck {
  name: string;
  /** The function's declaration line (0-based LSP range). */
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  /** The model its check runs under. */
  model: string;
}

/** The `checks` of a `tsocheck/checks` result (none for anything else). */
export function checksOf(result: unknown): ServerCheck[] {
  const list = (result as { checks?: unknown } | null | undefined)?.checks;
  return Array.isArray(list)
    ? list.filter((c): c is ServerCheck => typeof c?.name === 'string' && typeof c?.range?.start?.line === 'number')
    : [];
}

/**
 * The check a 0-based line belongs to: the last one declared at or above it;
 * else, when the file has exactly one, that one.
 */
export function checkAt(checks: ServerCheck[], line: number): ServerCheck | undefined {
  let at: ServerCheck | undefined;
  for (const c of checks) if (c.range.start.line <= line && (!at || c.range.start.line >= at.range.start.line)) at = c;
  return at ?? (checks.length === 1 ? checks[0] : undefined);
}
