// The template page's loading state shows the image the server preloaded
// (lib/gallery-preload.ts), on the page the visit opened on only.
import { afterEach, describe, expect, it, vi } from 'vitest'

async function freshModule(openedAt: string) {
  window.history.replaceState(null, '', openedAt)
  vi.resetModules()
  return import('./gallery-preload')
}

afterEach(() => {
  document.head.querySelectorAll('link[rel="preload"]').forEach((l) => l.remove())
  window.history.replaceState(null, '', '/')
})

describe('preloadedGalleryImage', () => {
  it("answers the head's image preload on the template page the visit opened on", async () => {
    const { preloadedGalleryImage } = await freshModule('/template/t-1')
    document.head.insertAdjacentHTML('beforeend', '<link rel="preload" href="/_/app-config.json" as="fetch" crossorigin>')
    expect(preloadedGalleryImage('/template/t-1')).toBeNull()
    document.head.insertAdjacentHTML('beforeend', '<link rel="preload" as="image" href="/demo/planner.svg" fetchpriority="high">')
    expect(preloadedGalleryImage('/template/t-1')).toBe(`${window.location.origin}/demo/planner.svg`)
  })

  it('answers nothing on another page than the one the visit opened on', async () => {
    const { preloadedGalleryImage } = await freshModule('/template/t-1')
    document.head.insertAdjacentHTML('beforeend', '<link rel="preload" as="image" href="/demo/planner.svg">')
    // The app moved on to another template: the head's link is the first one's image.
    window.history.pushState(null, '', '/template/t-2')
    expect(preloadedGalleryImage()).toBeNull()
    expect(preloadedGalleryImage('/template/t-2')).toBeNull()
  })
})
