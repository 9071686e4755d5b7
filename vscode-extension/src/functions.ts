// Finds annotated check functions (TSOCHECK, TSOCHECK_WITH(...),
// __attribute__((annotate("tsocheck..."))) in C source with a light scan:
// comments and strings are skipped, braces are matched. Pure.

export interface CheckFunction {
  name: string;
  /** 0-based line of the annotation. */
  annotationLine: number;
  /** 0-based line of the function name. */
  nameLine: number;
  /** 0-based lines of the body's braces (-1 when it has no body). */
  bodyStart: number;
  bodyEnd: number;
}

interface Token {
  text: string;
  line: number;
  kind: 'ident' | 'punct' | 'string' | 'other';
}

/** Tokens of C source outside comments and preprocessor lines (strings are kept as one token). */
export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0, line = 0, lineStart = true;
  const n = src.length;
  while (i < n) {
    const c = src[i];
    if (c === '\n') { line++; i++; lineStart = true; continue; }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v') { i++; continue; }
    if (c === '/' && src[i + 1] === '/') { while (i < n && src[i] !== '\n') i++; continue; }
    if (c === '/' && src[i + 1] === '*') {
      i += 2;
      while (i < n && !(src[i] === '*' && src[i + 1] === '/')) { if (src[i] === '\n') line++; i++; }
      i += 2;
      continue;
    }
    if (c === '#' && lineStart) {
      // A preprocessor line, with backslash continuations.
      while (i < n && src[i] !== '\n') { if (src[i] === '\\' && src[i + 1] === '\n') { line++; i++; } i++; }
      continue;
    }
    lineStart = false;
    if (c === '"' || c === '\'') {
      const startLine = line;
      let j = i + 1;
      while (j < n && src[j] !== c && src[j] !== '\n') j += src[j] === '\\' ? 2 : 1;
      out.push({ text: src.slice(i, j + 1), line: startLine, kind: 'string' });
      i = j + 1;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < n && /[A-Za-z0-9_]/.test(src[j])) j++;
      out.push({ text: src.slice(i, j), line, kind: 'ident' });
      i = j;
      continue;
    }
    out.push({ text: c, line, kind: /[(){};,]/.test(c) ? 'punct' : 'other' });
    i++;
  }
  return out;
}

function closing(tokens: Token[], open: number, o: string, c: string): number {
  let depth = 0;
  for (let k = open; k < tokens.length; k++) {
    if (tokens[k].text === o) depth++;
    else if (tokens[k].text === c && --depth === 0) return k;
  }
  return tokens.length - 1;
}

function isAnnotation(tokens: Token[], k: number): { end: number } | undefined {
  const t = tokens[k];
  if (t.kind !== 'ident') return undefined;
  if (t.text === 'TSOCHECK') return { end: k };
  if (t.text === 'TSOCHECK_WITH' && tokens[k + 1]?.text === '(') return { end: closing(tokens, k + 1, '(', ')') };
  if (t.text === '__attribute__' && tokens[k + 1]?.text === '(') {
    const end = closing(tokens, k + 1, '(', ')');
    for (let m = k + 2; m < end; m++)
      if (tokens[m].text === 'annotate' && tokens[m + 1]?.text === '(' && /^"tsocheck\b/.test(tokens[m + 2]?.text ?? ''))
        return { end };
  }
  return undefined;
}

const notNames = new Set(['__attribute__', 'TSOCHECK', 'TSOCHECK_WITH', 'if', 'while', 'for', 'switch', 'return', 'sizeof']);

export function findCheckFunctions(src: string): CheckFunction[] {
  const tokens = tokenize(src);
  const out: CheckFunction[] = [];
  let depth = 0;
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k];
    if (t.text === '{') depth++;
    else if (t.text === '}') depth = Math.max(0, depth - 1);
    if (depth !== 0) continue;
    const ann = isAnnotation(tokens, k);
    if (!ann) continue;
    // The declarator: the first identifier followed by '(' that is not another attribute.
    let m = ann.end + 1;
    let name: Token | undefined;
    for (; m < tokens.length && tokens[m].text !== ';' && tokens[m].text !== '{'; m++) {
      const more = isAnnotation(tokens, m);
      if (more) { m = more.end; continue; }
      if (tokens[m].text === '__attribute__' && tokens[m + 1]?.text === '(') { m = closing(tokens, m + 1, '(', ')'); continue; }
      if (tokens[m].kind === 'ident' && !notNames.has(tokens[m].text) && tokens[m + 1]?.text === '(') { name = tokens[m]; break; }
    }
    if (!name) continue;
    // Skip the parameter list (and any trailing attributes) to the body.
    let p = closing(tokens, m + 1, '(', ')') + 1;
    while (p < tokens.length && tokens[p].text !== '{' && tokens[p].text !== ';') p++;
    let bodyStart = -1, bodyEnd = -1;
    if (tokens[p]?.text === '{') {
      const close = closing(tokens, p, '{', '}');
      bodyStart = tokens[p].line;
      bodyEnd = tokens[close].line;
      k = close; // the loop's depth tracking continues after the body
    } else {
      k = p;
    }
    out.push({ name: name.text, annotationLine: t.line, nameLine: name.line, bodyStart, bodyEnd });
  }
  return out;
}

/**
 * The check function "around" a 0-based line: the one whose annotation..body
 * contains it; else, when the file has exactly one, that one.
 */
export function functionAt(fns: CheckFunction[], line: number): CheckFunction | undefined {
  const inside = fns.find((f) => f.annotationLine <= line && line <= Math.max(f.bodyEnd, f.nameLine));
  if (inside) return inside;
  return fns.length === 1 ? fns[0] : undefined;
}
