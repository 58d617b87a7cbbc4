import { describe, expect, it } from 'vitest'
import { render } from '@testing-library/react'
import { DEFAULT_TITLE, pageTitle, usePageTitle } from './page-title'

function Screen({ name }: { name: string | null | undefined }) {
  usePageTitle(name)
  return null
}

describe('page titles', () => {
  it('names a screen after what it shows, and falls back to the default', () => {
    expect(pageTitle('Habit Tracker')).toBe('Habit Tracker — Plinth Templates')
    expect(pageTitle('  ')).toBe(DEFAULT_TITLE)
    expect(pageTitle(null)).toBe(DEFAULT_TITLE)
  })

  it('follows the screen and gives the default back when it goes', () => {
    document.title = 'Something the server said'
    const { rerender, unmount } = render(<Screen name={undefined} />)
    expect(document.title).toBe('Something the server said')
    rerender(<Screen name="Habit Tracker" />)
    expect(document.title).toBe('Habit Tracker — Plinth Templates')
    rerender(<Screen name="Second Brain" />)
    expect(document.title).toBe('Second Brain — Plinth Templates')
    unmount()
    expect(document.title).toBe(DEFAULT_TITLE)
  })
})
