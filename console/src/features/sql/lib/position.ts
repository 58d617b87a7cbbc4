// Where a PostgreSQL error position points in the query: `position` counts
// characters (not UTF-16 units) from 1, as PostgreSQL does.

export type Location = { line: number; column: number; lineText: string; caret: string }

export function locate(query: string, position: number): Location | null {
  if (!Number.isInteger(position) || position < 1) return null
  const chars = Array.from(query)
  const at = Math.min(position - 1, chars.length)
  let line = 1
  let start = 0
  for (let i = 0; i < at; i++) {
    if (chars[i] === '\n') {
      line++
      start = i + 1
    }
  }
  let end = start
  while (end < chars.length && chars[end] !== '\n') end++
  const lineChars = chars.slice(start, end)
  const lineText = lineChars.join('').replace(/\r$/, '')
  // Under a tab the caret line has a tab too, so the caret stays aligned.
  const caret = lineChars.slice(0, at - start).map((c) => (c === '\t' ? '\t' : ' ')).join('') + '^'
  return { line, column: at - start + 1, lineText, caret }
}
