import { beforeEach, describe, expect, it } from 'vitest'
import { FakeSupabase } from '@/testing/fake-supabase'
import { setFake } from '@/testing/supabase-module'
import { AVATAR_RENDITION, CARD_RENDITION, GALLERY_RENDITION, imageSize, renditionUrl } from './image-url'

describe('renditionUrl', () => {
  beforeEach(() => {
    setFake(new FakeSupabase())
  })

  it('asks for a rendition of a public storage URL of any bucket', () => {
    const url = renditionUrl('http://localhost:3000/storage/v1/object/public/templates/u1/a%20b.png', 'avatars', CARD_RENDITION)
    expect(url).toBe('http://localhost:3000/storage/v1/render/image/public/templates/u1/a%20b.png?width=640&resize=cover')
  })

  it('takes a bare path as one in the given bucket', () => {
    expect(renditionUrl('u1/me.jpg', 'avatars', AVATAR_RENDITION)).toBe(
      'http://localhost:3000/storage/v1/render/image/public/avatars/u1/me.jpg?width=96&height=96&resize=cover',
    )
  })

  it('leaves site assets, other sites and inline images alone', () => {
    for (const value of ['/demo/card.png', 'https://example.com/x.png', 'data:image/png;base64,AAAA', 'blob:http://x/1']) {
      expect(renditionUrl(value, 'templates', CARD_RENDITION)).toBe(value)
    }
    expect(renditionUrl(null, 'templates', CARD_RENDITION)).toBeNull()
    expect(renditionUrl('', 'templates', CARD_RENDITION)).toBeNull()
  })
})

describe('imageSize', () => {
  it('is the rendition box, 16:10 when only the width is set', () => {
    expect(imageSize(CARD_RENDITION)).toEqual({ width: 640, height: 400 })
    expect(imageSize(GALLERY_RENDITION)).toEqual({ width: 1280, height: 800 })
    expect(imageSize(AVATAR_RENDITION)).toEqual({ width: 96, height: 96 })
  })
})
