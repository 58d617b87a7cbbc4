// A Markdown textarea with a formatting toolbar and an Edit/Preview toggle.
//
// The text stays Markdown in both variants; the toolbar only writes Markdown
// syntax around (or in front of) the selection, so what is stored is exactly
// what the user could have typed.
//
// Underline ('rich' variant): Markdown has no underline, so it is stored as the
// inline HTML pair `<u>text</u>`. The shared renderer (`@/components/ui/markdown`)
// does not parse raw HTML; it turns only matched `<u>`/`</u>` pairs into a `u`
// element and lets `u` (and nothing else new) through its sanitiser. Any other
// raw HTML (a `<u>` with attributes or without its pair included) is still
// dropped by the sanitiser, keeping only its text, so underline round-trips
// (editor -> stored text -> rendered page -> editor) without opening the
// renderer to arbitrary HTML.
import { useCallback, useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react'
import {
  Bold,
  Code,
  Heading1,
  Heading2,
  Heading3,
  Italic,
  Link,
  List,
  ListOrdered,
  Minus,
  Quote,
  RemoveFormatting,
  Underline,
} from 'lucide-react'
import { Markdown } from '@/components/ui/markdown'
import { cn } from '@/lib/format'

export type MarkdownEditorVariant = 'markdown' | 'rich'

export interface MarkdownEditorProps {
  id: string
  label: string
  value: string
  onChange: (value: string) => void
  variant?: MarkdownEditorVariant
  hint?: string
  rows?: number
}

/** The result of a toolbar action: the new text and the selection to restore. */
export interface Edit {
  value: string
  start: number
  end: number
}

type Action =
  | 'bold'
  | 'italic'
  | 'underline'
  | 'h1'
  | 'h2'
  | 'h3'
  | 'bullet'
  | 'numbered'
  | 'quote'
  | 'code'
  | 'link'
  | 'divider'
  | 'clean'

interface Tool {
  action: Action
  label: string
  icon: ReactNode
}

const iconClass = 'h-4 w-4'

const TOOLS: Record<Action, Tool> = {
  bold: { action: 'bold', label: 'Bold', icon: <Bold className={iconClass} aria-hidden /> },
  italic: { action: 'italic', label: 'Italic', icon: <Italic className={iconClass} aria-hidden /> },
  underline: { action: 'underline', label: 'Underline', icon: <Underline className={iconClass} aria-hidden /> },
  h1: { action: 'h1', label: 'Heading 1', icon: <Heading1 className={iconClass} aria-hidden /> },
  h2: { action: 'h2', label: 'Heading 2', icon: <Heading2 className={iconClass} aria-hidden /> },
  h3: { action: 'h3', label: 'Heading 3', icon: <Heading3 className={iconClass} aria-hidden /> },
  bullet: { action: 'bullet', label: 'Bullet list', icon: <List className={iconClass} aria-hidden /> },
  numbered: { action: 'numbered', label: 'Numbered list', icon: <ListOrdered className={iconClass} aria-hidden /> },
  quote: { action: 'quote', label: 'Quote', icon: <Quote className={iconClass} aria-hidden /> },
  code: { action: 'code', label: 'Code block', icon: <Code className={iconClass} aria-hidden /> },
  link: { action: 'link', label: 'Link', icon: <Link className={iconClass} aria-hidden /> },
  divider: { action: 'divider', label: 'Divider', icon: <Minus className={iconClass} aria-hidden /> },
  clean: { action: 'clean', label: 'Clear formatting', icon: <RemoveFormatting className={iconClass} aria-hidden /> },
}

/** Toolbar groups per variant (a separator is drawn between groups). */
const TOOLBARS: Record<MarkdownEditorVariant, Action[][]> = {
  markdown: [['bold', 'italic'], ['h1', 'h2', 'h3'], ['bullet', 'numbered', 'quote'], ['link', 'divider']],
  rich: [
    ['h1', 'h2', 'h3'],
    ['bold', 'italic', 'underline'],
    ['numbered', 'bullet'],
    ['quote', 'code', 'link'],
    ['clean'],
  ],
}

// ---------------------------------------------------------------------------
// Pure text transforms (exported for tests).

/** Wraps the selection in `before`/`after`, or unwraps it when already wrapped. */
export function wrapSelection(
  value: string,
  start: number,
  end: number,
  before: string,
  after: string,
  placeholder: string,
): Edit {
  const selected = value.slice(start, end)
  // Already wrapped just outside the selection: remove the markers.
  if (value.slice(start - before.length, start) === before && value.slice(end, end + after.length) === after) {
    const next = value.slice(0, start - before.length) + selected + value.slice(end + after.length)
    return { value: next, start: start - before.length, end: end - before.length }
  }
  // The selection itself includes the markers: remove them.
  if (selected.length >= before.length + after.length && selected.startsWith(before) && selected.endsWith(after)) {
    const inner = selected.slice(before.length, selected.length - after.length)
    return { value: value.slice(0, start) + inner + value.slice(end), start, end: start + inner.length }
  }
  // Keep surrounding spaces outside the markers ('**word **' is not bold).
  const lead = selected.length - selected.trimStart().length
  const trail = selected.length - selected.trimEnd().length
  const core = selected.trim() || placeholder
  const s = start + (selected.trim() ? lead : 0)
  const e = end - (selected.trim() ? trail : 0)
  const next = value.slice(0, s) + before + core + after + value.slice(e)
  return { value: next, start: s + before.length, end: s + before.length + core.length }
}

function lineBounds(value: string, start: number, end: number): [number, number] {
  const from = value.lastIndexOf('\n', start - 1) + 1
  // A selection ending right after a newline does not include the next line.
  const endAt = end > start && value[end - 1] === '\n' ? end - 1 : end
  const nl = value.indexOf('\n', endAt)
  return [from, nl === -1 ? value.length : nl]
}

const HEADING = /^#{1,6}\s+/
const BULLET = /^[-*+]\s+/
const NUMBERED = /^\d+[.)]\s+/
const QUOTE = /^>\s?/

/**
 * Prefixes every selected line (whole lines). Toggles off when every non-blank
 * line already has this prefix; replaces another prefix of the same family
 * (a heading level by another, a bullet by a number).
 */
export function prefixLines(
  value: string,
  start: number,
  end: number,
  kind: 'h1' | 'h2' | 'h3' | 'bullet' | 'numbered' | 'quote',
): Edit {
  const [from, to] = lineBounds(value, start, end)
  const lines = value.slice(from, to).split('\n')
  const family = kind === 'bullet' || kind === 'numbered' ? [BULLET, NUMBERED] : kind === 'quote' ? [QUOTE] : [HEADING]
  const prefixFor = (i: number): string =>
    kind === 'h1' ? '# ' : kind === 'h2' ? '## ' : kind === 'h3' ? '### ' : kind === 'bullet' ? '- ' : kind === 'numbered' ? `${i + 1}. ` : '> '
  const own = kind === 'numbered' ? NUMBERED : kind === 'bullet' ? BULLET : kind === 'quote' ? QUOTE : null
  const hasOwn = (line: string) => (own ? own.test(line) : line.startsWith(prefixFor(0)) && !line.startsWith(prefixFor(0) + '#'))
  const content = lines.filter((l) => l.trim() !== '')
  const allOwn = content.length > 0 && content.every(hasOwn)
  let n = 0
  const out = lines.map((line) => {
    if (line.trim() === '' && lines.length > 1) return line
    let bare = line
    for (const re of family) bare = bare.replace(re, '')
    if (allOwn) return bare
    return prefixFor(n++) + bare
  })
  const block = out.join('\n')
  const next = value.slice(0, from) + block + value.slice(to)
  if (start === end && lines.length === 1) {
    // Keep the caret at the same place in the line's text.
    const delta = block.length - (to - from)
    const caret = Math.max(from, start + delta)
    return { value: next, start: caret, end: caret }
  }
  return { value: next, start: from, end: from + block.length }
}

/** Turns the selection into a link; the URL part is selected for typing. */
export function insertLink(value: string, start: number, end: number): Edit {
  const text = value.slice(start, end).trim() || 'link text'
  const url = 'https://'
  const inserted = `[${text}](${url})`
  const next = value.slice(0, start) + inserted + value.slice(end)
  const urlStart = start + text.length + 3
  return { value: next, start: urlStart, end: urlStart + url.length }
}

/** Inserts a horizontal rule on its own paragraph after the selection (or at the caret). */
export function insertDivider(value: string, _start: number, end: number): Edit {
  const beforeText = value.slice(0, end)
  const afterText = value.slice(end)
  const lead = beforeText === '' ? '' : beforeText.endsWith('\n\n') ? '' : beforeText.endsWith('\n') ? '\n' : '\n\n'
  const trail = afterText.startsWith('\n\n') ? '' : afterText.startsWith('\n') ? '\n' : '\n\n'
  const inserted = `${lead}---${trail}`
  const caret = end + inserted.length
  return { value: beforeText + inserted + afterText, start: caret, end: caret }
}

/** Wraps the selected lines in a fenced code block (or removes the fence). */
export function codeBlock(value: string, start: number, end: number): Edit {
  const [from, to] = lineBounds(value, start, end)
  const block = value.slice(from, to)
  const fenced = /^```[^\n]*\n([\s\S]*?)\n?```$/.exec(block)
  if (fenced) {
    const inner = fenced[1]
    return { value: value.slice(0, from) + inner + value.slice(to), start: from, end: from + inner.length }
  }
  const inner = block || 'code'
  const next = value.slice(0, from) + '```\n' + inner + '\n```' + value.slice(to)
  return { value: next, start: from + 4, end: from + 4 + inner.length }
}

/** Removes Markdown formatting (and the `<u>` underline) from a piece of text. */
export function stripFormatting(text: string): string {
  return text
    .split('\n')
    .filter((line) => !/^\s*```/.test(line) && !/^\s*(-{3,}|\*{3,}|_{3,})\s*$/.test(line))
    .map((line) =>
      line
        .replace(HEADING, '')
        .replace(QUOTE, '')
        .replace(BULLET, '')
        .replace(NUMBERED, ''),
    )
    .join('\n')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<\/?u>/gi, '')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(\*|_)(.+?)\1/g, '$2')
    .replace(/~~(.+?)~~/g, '$1')
    .replace(/`([^`]+)`/g, '$1')
}

/** 'Clear formatting' on the selection; with no selection, on the current line. */
export function cleanSelection(value: string, start: number, end: number): Edit {
  const [from, to] = start === end ? lineBounds(value, start, end) : [start, end]
  const cleaned = stripFormatting(value.slice(from, to))
  return { value: value.slice(0, from) + cleaned + value.slice(to), start: from, end: from + cleaned.length }
}

export function applyAction(action: Action, value: string, start: number, end: number): Edit {
  switch (action) {
    case 'bold':
      return wrapSelection(value, start, end, '**', '**', 'bold text')
    case 'italic':
      return wrapSelection(value, start, end, '_', '_', 'italic text')
    case 'underline':
      return wrapSelection(value, start, end, '<u>', '</u>', 'underlined text')
    case 'h1':
    case 'h2':
    case 'h3':
    case 'bullet':
    case 'numbered':
    case 'quote':
      return prefixLines(value, start, end, action)
    case 'code':
      return codeBlock(value, start, end)
    case 'link':
      return insertLink(value, start, end)
    case 'divider':
      return insertDivider(value, start, end)
    case 'clean':
      return cleanSelection(value, start, end)
  }
}

// ---------------------------------------------------------------------------

export function MarkdownEditor({ id, label, value, onChange, variant = 'markdown', hint, rows = 12 }: MarkdownEditorProps) {
  const [mode, setMode] = useState<'edit' | 'preview'>('edit')
  const ref = useRef<HTMLTextAreaElement>(null)
  const pending = useRef<{ start: number; end: number } | null>(null)
  const hintId = hint ? `${id}-hint` : undefined

  // Restore focus and selection once the parent has re-rendered with the new text.
  useLayoutEffect(() => {
    const sel = pending.current
    const el = ref.current
    if (!sel || !el) return
    pending.current = null
    el.focus()
    el.setSelectionRange(sel.start, sel.end)
  }, [value, mode])

  const run = useCallback(
    (action: Action) => {
      const el = ref.current
      if (!el) return
      const edit = applyAction(action, value, el.selectionStart ?? value.length, el.selectionEnd ?? value.length)
      pending.current = { start: edit.start, end: edit.end }
      if (edit.value !== value) {
        onChange(edit.value)
      } else {
        el.focus()
        el.setSelectionRange(edit.start, edit.end)
        pending.current = null
      }
    },
    [value, onChange],
  )

  const tools = TOOLBARS[variant]
  const available = new Set(tools.flat())

  function onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>) {
    if (!(e.ctrlKey || e.metaKey) || e.altKey) return
    const key = e.key.toLowerCase()
    const action: Action | null = key === 'b' ? 'bold' : key === 'i' ? 'italic' : key === 'u' ? 'underline' : key === 'k' ? 'link' : null
    if (action && available.has(action)) {
      e.preventDefault()
      run(action)
    }
  }

  return (
    <div>
      <div className="mb-1.5 flex flex-wrap items-end justify-between gap-2">
        <label htmlFor={id} className="block text-sm font-medium text-slate-800">
          {label}
        </label>
        <div className="inline-flex rounded-lg border border-slate-300 p-0.5" role="group" aria-label={`${label} mode`}>
          {(['edit', 'preview'] as const).map((m) => (
            <button
              key={m}
              type="button"
              aria-pressed={mode === m}
              onClick={() => setMode(m)}
              className={cn(
                'rounded-md px-3 py-1 text-xs font-medium focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500',
                mode === m ? 'bg-brand-600 text-white' : 'text-slate-700 hover:bg-slate-100',
              )}
            >
              {m === 'edit' ? 'Edit' : 'Preview'}
            </button>
          ))}
        </div>
      </div>
      <div className="overflow-hidden rounded-lg border border-slate-300 bg-white focus-within:border-brand-500 focus-within:ring-2 focus-within:ring-brand-500/30">
        {mode === 'edit' ? (
          <>
            <div
              role="toolbar"
              aria-label={`${label} formatting`}
              aria-controls={id}
              className="flex flex-wrap items-center gap-0.5 border-b border-slate-200 bg-slate-50 px-1.5 py-1"
            >
              {tools.map((group, gi) => (
                <div key={gi} className="flex items-center gap-0.5">
                  {gi > 0 && <span aria-hidden className="mx-1 h-5 w-px bg-slate-300" />}
                  {group.map((action) => {
                    const tool = TOOLS[action]
                    return (
                      <button
                        key={action}
                        type="button"
                        aria-label={tool.label}
                        title={tool.label}
                        // Keep the textarea's focus and selection on mouse use.
                        onMouseDown={(e) => e.preventDefault()}
                        onClick={() => run(action)}
                        className="inline-flex h-8 w-8 items-center justify-center rounded-md text-slate-700 hover:bg-slate-200 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500"
                      >
                        {tool.icon}
                      </button>
                    )
                  })}
                </div>
              ))}
            </div>
            <textarea
              ref={ref}
              id={id}
              rows={rows}
              value={value}
              onChange={(e) => onChange(e.target.value)}
              onKeyDown={onKeyDown}
              aria-describedby={hintId}
              className="block w-full resize-y border-0 bg-white px-3 py-2 font-mono text-sm text-slate-900 placeholder:text-slate-500 focus:outline-none"
              placeholder="Write in Markdown…"
            />
          </>
        ) : (
          <div
            role="region"
            aria-label={`${label} preview`}
            className="min-h-32 px-4 py-3"
            style={{ minHeight: `${Math.max(rows, 4) * 1.5}rem` }}
          >
            {value.trim() ? <Markdown>{value}</Markdown> : <p className="text-sm text-slate-500">Nothing to preview yet.</p>}
          </div>
        )}
      </div>
      {hint && (
        <p id={hintId} className="mt-1 text-xs text-slate-600">
          {hint}
        </p>
      )}
    </div>
  )
}
