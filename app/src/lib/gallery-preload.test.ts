// The server preloads the first image of a template page's gallery
// (crates/marketplace/src/pages/preload.rs); a preload only helps when its
// URL is the very string the gallery then asks for. Both sides check the
// same cases (gallery-preload-cases.json): here, the app's renditionUrl
// with the real supabase-js (not the test fake) must give each case's
// preload, resolved on the page's origin.
import { beforeEach, describe, expect, it } from 'vitest'
import { createClient } from '@supabase/supabase-js'
import type { FakeSupabase } from '@/testing/fake-supabase'
import { setFake } from '@/testing/supabase-module'
import { TEMPLATES_BUCKET } from '@/config/constants'
import cases from './gallery-preload-cases.json'
import { GALLERY_RENDITION, renditionUrl } from './image-url'

const ORIGIN = 'http://shop.example:8080'

describe('the server\'s gallery preload', () => {
  beforeEach(() => {
    const client = createClient(ORIGIN, 'anon-key', {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    })
    setFake({ client } as unknown as FakeSupabase)
  })

  it('names the URL the gallery asks for, wherever the server preloads one', () => {
    const preloaded = cases.filter((c): c is { value: string; preload: string } => c.preload !== null)
    expect(preloaded.length).toBeGreaterThan(5)
    for (const { value, preload } of preloaded) {
      const asked = renditionUrl(value, TEMPLATES_BUCKET, GALLERY_RENDITION)
      // The browser resolves the preload's root-relative URL on the page's origin.
      expect(`${ORIGIN}${preload}`, value).toBe(asked?.startsWith('/') ? `${ORIGIN}${asked}` : asked)
    }
  })
})
