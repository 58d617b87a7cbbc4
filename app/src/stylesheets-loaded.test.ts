import { describe, expect, it } from 'vitest'
import { stylesheetsLoaded } from './stylesheets-loaded'

/** A document with stylesheet links; `sheet` stands for "already loaded" (jsdom loads none). */
function page(loaded: boolean[]) {
  const doc = document.implementation.createHTMLDocument('page')
  const links = loaded.map((isLoaded) => {
    const link = doc.createElement('link')
    link.rel = 'stylesheet'
    link.href = '/assets/index.css'
    Object.defineProperty(link, 'sheet', { value: isLoaded ? {} : null })
    doc.body.append(link)
    return link
  })
  return { doc, links }
}

const settled = async (promise: Promise<void>) => {
  let done = false
  void promise.then(() => (done = true))
  for (let i = 0; i < 5; i++) await Promise.resolve()
  return done
}

describe('stylesheetsLoaded', () => {
  it('waits for a stylesheet still on its way, until it loads or fails', async () => {
    const { doc, links } = page([true, false, false])
    const waiting = stylesheetsLoaded(doc)
    expect(await settled(waiting)).toBe(false)
    links[1].dispatchEvent(new Event('load'))
    expect(await settled(waiting)).toBe(false)
    links[2].dispatchEvent(new Event('error'))
    expect(await settled(waiting)).toBe(true)
  })

  it('does not wait when every stylesheet is in, or there is none', async () => {
    expect(await settled(stylesheetsLoaded(page([true, true]).doc))).toBe(true)
    expect(await settled(stylesheetsLoaded(page([]).doc))).toBe(true)
  })
})
