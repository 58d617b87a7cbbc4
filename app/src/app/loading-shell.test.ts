// The loading shell of index.html (issue 44 item 5) shows Home's hero words
// on `/` before any script: they must stay the words Home itself shows, and
// the shell's header the app's brand and main links.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BRAND } from '@/config/constants'

const app = join(__dirname, '../..')
const index = new DOMParser().parseFromString(readFileSync(join(app, 'index.html'), 'utf8'), 'text/html')
const home = readFileSync(join(app, 'src/app/routes/home.tsx'), 'utf8').replace(/\s+/g, ' ')
const words = (el: Element | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim()

describe('the loading shell', () => {
  it("shows Home's hero in Home's words (hidden unless the server shows it)", () => {
    const hero = index.querySelector('#root [data-shell-hero]')
    expect(hero?.hasAttribute('hidden')).toBe(true)
    for (const selector of ['.shell-badge', 'h1', '.shell-lead']) {
      const text = words(hero!.querySelector(selector))
      expect(text.length).toBeGreaterThan(10)
      expect(home).toContain(text)
    }
    for (const link of hero!.querySelectorAll('a')) {
      expect(home).toContain(`to="${link.getAttribute('href')}"`)
      expect(home).toContain(words(link))
    }
  })

  it("has the app's brand, plain links to the main lists, and a loading status", () => {
    const shell = index.querySelector('#root > [data-loading-shell]')
    expect(words(shell!.querySelector('a[href="/"]'))).toBe(BRAND)
    const links = [...shell!.querySelectorAll('nav a')].map((a) => a.getAttribute('href'))
    expect(links).toEqual(['/', '/discover', '/categories', '/creators'])
    expect(words(shell!.querySelector('[role="status"]'))).toBe('Loading templates...')
    // The build puts the stylesheet after the shell (vite.config.ts).
    expect(readFileSync(join(app, 'index.html'), 'utf8')).toMatch(/<\/div><\/div>\s*<!-- app-stylesheet/)
  })
})
