import '@testing-library/jest-dom/vitest'
import { afterEach, beforeEach, vi } from 'vitest'
import { cleanup, configure } from '@testing-library/react'
import { toast } from 'sonner'
import { resetNavMemory } from './render'

// Pages load lazily and the machine may be busy: give async queries room.
configure({ asyncUtilTimeout: 5000 })

// The network boundary: the SDK client module is the in-memory fake.
vi.mock('@/lib/supabase', () => import('./supabase-module'))

// What jsdom lacks and the UI libraries touch.
class ResizeObserverStub {
  observe() {}
  unobserve() {}
  disconnect() {}
}
globalThis.ResizeObserver ??= ResizeObserverStub as unknown as typeof ResizeObserver
window.scrollTo = (() => {}) as typeof window.scrollTo
window.matchMedia ??= ((query: string) => ({
  matches: false,
  media: query,
  onchange: null,
  addListener: () => {},
  removeListener: () => {},
  addEventListener: () => {},
  removeEventListener: () => {},
  dispatchEvent: () => false,
})) as typeof window.matchMedia
Element.prototype.scrollIntoView ??= function () {}
// jsdom has no 2D canvas: the avatar resize falls back to the original file.
HTMLCanvasElement.prototype.getContext = (() => null) as typeof HTMLCanvasElement.prototype.getContext
Element.prototype.hasPointerCapture ??= () => false
Element.prototype.releasePointerCapture ??= () => {}
// A toast's action button: sonner captures the pointer on the toast.
Element.prototype.setPointerCapture ??= () => {}

const originalError = console.error
beforeEach(() => {
  // Quiet failures are logged by design; keep the test output readable.
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].startsWith('[marketplace]')) return
    originalError(...args)
  })
  sessionStorage.clear()
  localStorage.clear()
  // Remembered navigation is module state: one test's last path must not be
  // restored into the next test.
  resetNavMemory()
})

afterEach(() => {
  // Toasts live in sonner's module-level store: clear them so one test's
  // toasts never fill the visible slots of the next.
  toast.dismiss()
  cleanup()
  // A modal unmounted mid-way may leave Radix's body lock behind.
  document.body.removeAttribute('style')
  document.body.removeAttribute('data-scroll-locked')
  vi.useRealTimers()
})
