/** A piece of a highlighted program: its text and what kind of token it is. */
export interface Token {
  readonly text: string
  readonly kind: 'keyword' | 'string' | 'comment' | 'number' | 'plain'
}

const KEYWORDS = new Set(
  'async await break case catch class const continue default do else export false for from function if import in let new null of return switch throw true try typeof undefined var while yield'.split(
    ' ',
  ),
)

// Comments, strings (three quote kinds), numbers, words, then any other single character.
const TOKEN =
  /\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$)|'(?:\\.|[^'\\\n])*'?|"(?:\\.|[^"\\\n])*"?|`(?:\\.|[^`\\])*`?|\b\d[\d_.]*\b|[A-Za-z_$][\w$]*|[\s\S]/g

/**
 * The tokens of a Code Mode program for highlighting (G3.2): JavaScript comments, strings,
 * numbers and keywords, everything else plain. The texts joined are exactly `code`.
 */
export function highlight(code: string): Token[] {
  const tokens: Token[] = []
  for (const [text] of code.matchAll(TOKEN)) {
    const kind: Token['kind'] =
      text.startsWith('//') || text.startsWith('/*')
        ? 'comment'
        : /^['"`]/.test(text)
          ? 'string'
          : /^\d/.test(text)
            ? 'number'
            : KEYWORDS.has(text)
              ? 'keyword'
              : 'plain'
    const last = tokens.at(-1)
    if (kind === 'plain' && last?.kind === 'plain')
      tokens[tokens.length - 1] = { text: last.text + text, kind }
    else tokens.push({ text, kind })
  }
  return tokens
}
