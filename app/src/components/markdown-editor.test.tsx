import { describe, expect, it } from 'vitest'
import { useState } from 'react'
import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import {
  MarkdownEditor,
  cleanSelection,
  codeBlock,
  insertDivider,
  insertLink,
  prefixLines,
  stripFormatting,
  wrapSelection,
  type MarkdownEditorVariant,
} from './markdown-editor'
import { Markdown } from './ui/markdown'

function Harness({ initial = '', variant }: { initial?: string; variant?: MarkdownEditorVariant }) {
  const [value, setValue] = useState(initial)
  return (
    <>
      <MarkdownEditor id="about" label="About" value={value} onChange={setValue} variant={variant} hint="Say what it does." />
      <output data-testid="value">{value}</output>
    </>
  )
}

function textarea(): HTMLTextAreaElement {
  return screen.getByRole('textbox', { name: 'About' }) as HTMLTextAreaElement
}

function select(start: number, end: number) {
  const el = textarea()
  el.focus()
  el.setSelectionRange(start, end)
}

const value = () => screen.getByTestId('value').textContent

describe('text transforms', () => {
  it('wraps a selection, keeps outer spaces outside, and unwraps it again', () => {
    expect(wrapSelection('make it bold', 8, 12, '**', '**', 'x')).toEqual({ value: 'make it **bold**', start: 10, end: 14 })
    expect(wrapSelection('a word here', 1, 7, '**', '**', 'x').value).toBe('a **word** here')
    expect(wrapSelection('make it **bold**', 10, 14, '**', '**', 'x')).toEqual({ value: 'make it bold', start: 8, end: 12 })
    expect(wrapSelection('make it **bold**', 8, 16, '**', '**', 'x').value).toBe('make it bold')
    expect(wrapSelection('', 0, 0, '_', '_', 'italic text')).toEqual({ value: '_italic text_', start: 1, end: 12 })
  })

  it('prefixes whole lines, numbers lists, swaps heading levels and toggles off', () => {
    expect(prefixLines('one\ntwo', 0, 7, 'bullet').value).toBe('- one\n- two')
    expect(prefixLines('one\ntwo', 0, 7, 'numbered').value).toBe('1. one\n2. two')
    expect(prefixLines('- one\n- two', 0, 11, 'numbered').value).toBe('1. one\n2. two')
    expect(prefixLines('1. one\n2. two', 0, 13, 'numbered').value).toBe('one\ntwo')
    expect(prefixLines('# Title', 3, 3, 'h2').value).toBe('## Title')
    expect(prefixLines('## Title', 3, 3, 'h2').value).toBe('Title')
    expect(prefixLines('intro\nquote me', 8, 8, 'quote').value).toBe('intro\n> quote me')
  })

  it('inserts links, dividers and code blocks', () => {
    expect(insertLink('see docs', 4, 8)).toEqual({ value: 'see [docs](https://)', start: 11, end: 19 })
    expect(insertDivider('above', 5, 5).value).toBe('above\n\n---\n\n')
    expect(insertDivider('keep me', 0, 7).value).toBe('keep me\n\n---\n\n')
    expect(insertDivider('', 0, 0).value).toBe('---\n\n')
    expect(codeBlock('let a = 1', 0, 9).value).toBe('```\nlet a = 1\n```')
    expect(codeBlock('```\nlet a = 1\n```', 0, 17).value).toBe('let a = 1')
  })

  it('clears formatting, underline included', () => {
    expect(stripFormatting('## **Bold** _it_ <u>under</u> [link](https://x.dev) `code`')).toBe('Bold it under link code')
    expect(stripFormatting('> - quoted item')).toBe('- quoted item'.replace('- ', ''))
    expect(cleanSelection('keep **this** line', 5, 13).value).toBe('keep this line')
    expect(cleanSelection('# Title\nnext', 2, 2).value).toBe('Title\nnext')
  })
})

describe('MarkdownEditor', () => {
  it('has a labelled textarea, its hint, and the markdown toolbar', () => {
    render(<Harness />)
    expect(textarea()).toHaveAccessibleDescription('Say what it does.')
    const toolbar = screen.getByRole('toolbar', { name: 'About formatting' })
    const names = Array.from(toolbar.querySelectorAll('button')).map((b) => b.getAttribute('aria-label'))
    expect(names).toEqual(['Bold', 'Italic', 'Heading 1', 'Heading 2', 'Heading 3', 'Bullet list', 'Numbered list', 'Quote', 'Link', 'Divider'])
  })

  it('has the rich toolbar with underline, code block and clear formatting', () => {
    render(<Harness variant="rich" />)
    const toolbar = screen.getByRole('toolbar', { name: 'About formatting' })
    const names = Array.from(toolbar.querySelectorAll('button')).map((b) => b.getAttribute('aria-label'))
    expect(names).toEqual([
      'Heading 1',
      'Heading 2',
      'Heading 3',
      'Bold',
      'Italic',
      'Underline',
      'Numbered list',
      'Bullet list',
      'Quote',
      'Code block',
      'Link',
      'Clear formatting',
    ])
  })

  it('formats the selection and keeps the focus and selection in the textarea', async () => {
    const user = userEvent.setup()
    render(<Harness initial="make it bold" />)
    select(8, 12)
    await user.click(screen.getByRole('button', { name: 'Bold' }))
    expect(value()).toBe('make it **bold**')
    expect(textarea()).toHaveFocus()
    expect([textarea().selectionStart, textarea().selectionEnd]).toEqual([10, 14])
    await user.click(screen.getByRole('button', { name: 'Bold' }))
    expect(value()).toBe('make it bold')
    await user.click(screen.getByRole('button', { name: 'Heading 2' }))
    expect(value()).toBe('## make it bold')
    // The divider goes after the selection (the whole line here), replacing nothing.
    await user.click(screen.getByRole('button', { name: 'Divider' }))
    expect(value()).toBe('## make it bold\n\n---\n\n')
  })

  it('underlines with <u> (rich) and clears it again', async () => {
    const user = userEvent.setup()
    render(<Harness initial="plain words" variant="rich" />)
    select(6, 11)
    await user.click(screen.getByRole('button', { name: 'Underline' }))
    expect(value()).toBe('plain <u>words</u>')
    select(0, value()!.length)
    await user.click(screen.getByRole('button', { name: 'Clear formatting' }))
    expect(value()).toBe('plain words')
  })

  it('has keyboard shortcuts for bold and link', async () => {
    const user = userEvent.setup()
    render(<Harness initial="docs" />)
    select(0, 4)
    await user.keyboard('{Control>}b{/Control}')
    expect(value()).toBe('**docs**')
    // Underline is not part of the markdown toolbar: the shortcut does nothing.
    await user.keyboard('{Control>}u{/Control}')
    expect(value()).toBe('**docs**')
  })

  it('toggles between Edit and Preview, rendering the Markdown', async () => {
    const user = userEvent.setup()
    render(<Harness initial={'## Heading\n\nSome <u>underlined</u> text <script>alert(1)</script>'} />)
    expect(screen.getByRole('button', { name: 'Edit' })).toHaveAttribute('aria-pressed', 'true')
    await user.click(screen.getByRole('button', { name: 'Preview' }))
    const preview = screen.getByRole('region', { name: 'About preview' })
    expect(preview.querySelector('h2')).toHaveTextContent('Heading')
    expect(preview.querySelector('u')).toHaveTextContent('underlined')
    expect(preview.querySelector('script')).toBeNull()
    expect(screen.queryByRole('toolbar')).not.toBeInTheDocument()
    await user.click(screen.getByRole('button', { name: 'Edit' }))
    expect(textarea()).toHaveValue('## Heading\n\nSome <u>underlined</u> text <script>alert(1)</script>')
  })
})

describe('Markdown underline', () => {
  it('renders matched <u> pairs, nested formatting included, and nothing else of raw HTML', () => {
    const { container } = render(
      <Markdown>{'<u>one **two**</u> and **<u>three</u>** <u onclick="x()">four</u> <b>five</b> <u>open'}</Markdown>,
    )
    const us = container.querySelectorAll('u')
    expect(us).toHaveLength(2)
    expect(us[0]).toHaveTextContent('one two')
    expect(us[0].querySelector('strong')).toHaveTextContent('two')
    expect(us[1]).toHaveTextContent('three')
    expect(us[1].closest('strong')).not.toBeNull()
    for (const u of us) expect(u.attributes).toHaveLength(0)
    // Tags with attributes, other tags and an unmatched <u> are dropped; their text stays.
    expect(container.querySelector('[onclick]')).toBeNull()
    expect(container.querySelector('b')).toBeNull()
    expect(container.textContent).toBe('one two and three four five open')
  })
})
